import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzInputs.recording(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
