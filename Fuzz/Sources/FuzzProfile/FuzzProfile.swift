import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzInputs.profile(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
