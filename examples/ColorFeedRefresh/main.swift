// SPDX-License-Identifier: Apache-2.0
// Apple's "Refreshing and Maintaining Your App Using Background Tasks" (ColorFeed), the refresh
// half, ported to agentd: the app delegate becomes `main`, and the refresh schedules the next
// one from inside its handler, as the sample does. Its job file:
//
//   [Job]
//   Identifier=com.example.colorfeed.refresh
//   Kind=refresh
//   Exec=/usr/bin/colorfeed-refresh
import BackgroundTasks
import Foundation

let refreshIdentifier = "com.example.colorfeed.refresh"
/// The sample asks for "no earlier than 15 minutes from now"; a test asks for less.
let refreshDelay = ProcessInfo.processInfo.environment["COLORFEED_REFRESH_SECONDS"].flatMap(Double.init) ?? 15 * 60

func scheduleAppRefresh() {
    let request = BGAppRefreshTaskRequest(identifier: refreshIdentifier)
    request.earliestBeginDate = Date(timeIntervalSinceNow: refreshDelay)
    do {
        try BGTaskScheduler.shared.submit(request)
    } catch {
        print("Could not schedule app refresh: \(error)")
    }
}

/// Fetches the latest entries; here, counts the refreshes in the job's state directory.
func fetchLatestEntries() -> Int {
    let directory = ProcessInfo.processInfo.environment["STATE_DIRECTORY"] ?? FileManager.default.currentDirectoryPath
    let file = URL(fileURLWithPath: directory).appendingPathComponent("refreshes")
    let count = ((try? String(contentsOf: file, encoding: .utf8)).flatMap { Int($0) } ?? 0) + 1
    try? String(count).write(to: file, atomically: true, encoding: .utf8)
    return count
}

func handleAppRefresh(task: BGAppRefreshTask) {
    // Schedule a new refresh task.
    scheduleAppRefresh()
    task.expirationHandler = {
        // After all operations are cancelled, the completion block below is called to set the
        // task to complete.
        print("refresh expired before it finished")
        task.setTaskCompleted(success: false)
    }
    let count = fetchLatestEntries()
    print("STATUS=fetched the latest entries (refresh \(count))")
    print("refresh \(count) done; next no earlier than \(Int(refreshDelay)) s from now")
    task.setTaskCompleted(success: true)
}

BGTaskScheduler.shared.register(forTaskWithIdentifier: refreshIdentifier, using: nil) { task in
    guard let refresh = task as? BGAppRefreshTask else {
        task.setTaskCompleted(success: false)
        return
    }
    handleAppRefresh(task: refresh)
}

if ProcessInfo.processInfo.environment["AGENTD_IDENTIFIER"] == nil {
    // Started by a person (iOS: the app went to the background): ask for the first refresh.
    scheduleAppRefresh()
    print("scheduled \(refreshIdentifier) no earlier than \(Int(refreshDelay)) s from now")
} else {
    // Launched by agentd: the handler runs on its queue and ends the process.
    dispatchMain()
}
