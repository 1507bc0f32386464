// SPDX-License-Identifier: Apache-2.0
@_exported import FuzzChecks

public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// libFuzzer's own driver (compiler-rt, linked by -sanitize=fuzzer).
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback
) -> Int32

/// SwiftPM links an executable with `main` bound to `<module>_main`, which shadows libFuzzer's
/// `main`; each target's `<module>_main` hands over to libFuzzer's driver through this.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: FuzzCallback) -> Int32 {
    var count = argc
    var vector = argv
    return llvmFuzzerRunDriver(&count, &vector, callback)
}
