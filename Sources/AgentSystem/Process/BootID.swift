// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The kernel's id of the current boot (`/proc/sys/kernel/random/boot_id`, a UUID that changes at
/// every boot). A run records it, so that after a restart the agent can tell a process group
/// number of this boot, which may still be its run's, from one of an earlier boot, which is
/// somebody else's.
public enum BootID {
    /// Reads the boot id under `procRoot` (`/proc`, or a test's fake tree).
    public static func read(procRoot: String) -> Result<String, SystemError> {
        let path = procRoot + "/sys/kernel/random/boot_id"
        guard let text = SmallFile.read(path, limit: 256) else {
            return .failure(SystemError.last("read", path: path))
        }
        let id = SmallFile.trim(text)
        guard !id.isEmpty else { return .failure(SystemError(call: "read", errno: ENODATA, path: path)) }
        return .success(id)
    }
}
