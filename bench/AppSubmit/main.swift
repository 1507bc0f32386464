// SPDX-License-Identifier: Apache-2.0
// An app's `submit` for bench/issue32_extra.py: `app-submit-bench ID [COUNT]` submits a
// BGAppRefreshTaskRequest for ID an hour from now, COUNT times (default 1), through the
// BackgroundTasks library to the agent at AGENTD_SOCKET; with a COUNT over 1 it prints the
// seconds the submits took (the library's own cost per call, without a process start). A COUNT
// of 0 submits nothing: the app's start alone.
import BackgroundTasks
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: app-submit-bench ID [COUNT]\n".utf8))
    exit(2)
}
let count = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
let start = DispatchTime.now().uptimeNanoseconds
do {
    for index in 0..<count {
        // A new date each time (a second apart: the agent keeps whole seconds), so that each
        // submit changes the pending request and is written before it is answered.
        let request = BGAppRefreshTaskRequest(identifier: arguments[1])
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600 + Double(index))
        try BGTaskScheduler.shared.submit(request)
    }
} catch {
    FileHandle.standardError.write(Data("app-submit-bench: \(error)\n".utf8))
    exit(1)
}
if count > 1 { print(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }
