// SPDX-License-Identifier: Apache-2.0
import FuzzDriver

/// libFuzzer's entry: `FuzzTarget.uevent`'s checks on each input (Tests/FuzzChecks).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.uevent.run(data, size)
}

@_cdecl("fuzz_uevent_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
