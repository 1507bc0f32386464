// SPDX-License-Identifier: Apache-2.0
#include "CShimSysfs.h"
#include <errno.h>
#include <linux/magic.h>
#include <sys/vfs.h>

int cshim_fd_is_procfs(int fd) {
    struct statfs info;
    int rc;
    do { rc = fstatfs(fd, &info); } while (rc < 0 && errno == EINTR);
    if (rc < 0) return -1;
    return info.f_type == PROC_SUPER_MAGIC ? 1 : 0;
}
