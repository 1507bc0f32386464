// SPDX-License-Identifier: Apache-2.0
import FuzzDriver

/// libFuzzer's entry: `FuzzTarget.calendar`'s checks on each input (Tests/FuzzChecks).
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.calendar.run(data, size)
}

@_cdecl("fuzz_calendar_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, testOneInput)
}
