// SPDX-License-Identifier: Apache-2.0
// Kernel-view helpers for AgentSystem/Sysfs (fstatfs is not exposed by `import Glibc`).
#ifndef AGENTD_CSHIM_SYSFS_H
#define AGENTD_CSHIM_SYSFS_H

/// 1 when fd is on a procfs mount (PROC_SUPER_MAGIC), 0 when on another file system, -1 on error.
/// Tells a real /proc/pressure file (which takes PSI triggers) from a fake tree's regular file
/// (which a trigger write would overwrite).
int cshim_fd_is_procfs(int fd);

#endif
