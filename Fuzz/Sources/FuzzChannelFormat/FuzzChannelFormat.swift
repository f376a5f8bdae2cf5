import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChannelFormat(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzInputs.channelFormat(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
