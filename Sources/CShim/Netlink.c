// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CShimNetlink.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

const int CSHIM_NETLINK_ROUTE = NETLINK_ROUTE, CSHIM_NETLINK_KOBJECT_UEVENT = NETLINK_KOBJECT_UEVENT,
          CSHIM_NETLINK_GENERIC = NETLINK_GENERIC;
const int CSHIM_NETLINK_OPT_NO_ENOBUFS = NETLINK_NO_ENOBUFS, CSHIM_NETLINK_OPT_EXT_ACK = NETLINK_EXT_ACK,
          CSHIM_NETLINK_OPT_GET_STRICT_CHK = NETLINK_GET_STRICT_CHK;

int cshim_netlink_socket(int protocol) {
    return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, protocol);
}

int cshim_netlink_socket_in_netns(pid_t pid, int protocol) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
    int target = open(path, O_RDONLY | O_CLOEXEC);
    if (target < 0) return -1;
    // The calling thread's own namespace (not the process's: another thread may have moved).
    int original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (original < 0) {
        int saved = errno;
        close(target);
        errno = saved;
        return -1;
    }
    if (setns(target, CLONE_NEWNET) != 0) {
        int saved = errno;
        close(target);
        close(original);
        errno = saved;
        return -1;
    }
    int fd = cshim_netlink_socket(protocol);
    int saved = errno;
    if (setns(original, CLONE_NEWNET) != 0) {
        // Never expected (we were allowed into the target and hold our own namespace open), and
        // not survivable: this thread would go on running in the wrong namespace.
        fprintf(stderr, "cshim_netlink_socket_in_netns: cannot return to the original network namespace: %s\n",
                strerror(errno));
        abort();
    }
    close(target);
    close(original);
    errno = saved;
    return fd;
}

int cshim_netlink_bind(int fd, uint32_t groups, uint32_t *port_id) {
    struct sockaddr_nl addr;
    memset(&addr, 0, sizeof addr);
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) return -1;
    socklen_t length = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &length) != 0) return -1;
    if (port_id) *port_id = addr.nl_pid;
    return 0;
}

int cshim_netlink_add_membership(int fd, uint32_t group) {
    unsigned int value = group;
    return setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &value, sizeof value);
}

int cshim_netlink_drop_membership(int fd, uint32_t group) {
    unsigned int value = group;
    return setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP, &value, sizeof value);
}

int cshim_netlink_set_receive_buffer(int fd, int bytes) {
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0) {
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0) return -1;
    }
    int actual = 0;
    socklen_t length = sizeof actual;
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &actual, &length) != 0) return -1;
    return actual;
}

int cshim_netlink_pass_credentials(int fd, int on) {
    int value = on ? 1 : 0;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &value, sizeof value);
}

int cshim_netlink_set_option(int fd, int option, int value) {
    return setsockopt(fd, SOL_NETLINK, option, &value, sizeof value);
}

ssize_t cshim_netlink_recv(int fd, void *buf, size_t len, struct cshim_netlink_source *source) {
    struct sockaddr_nl addr;
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    union {
        char buffer[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    struct msghdr msg;
    ssize_t n;
    do {
        memset(&addr, 0, sizeof addr);
        memset(&msg, 0, sizeof msg);
        msg.msg_name = &addr;
        msg.msg_namelen = sizeof addr;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.buffer;
        msg.msg_controllen = sizeof control.buffer;
        n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return -1;
    memset(source, 0, sizeof *source);
    source->port_id = addr.nl_pid;
    source->groups = addr.nl_groups;
    source->truncated = (msg.msg_flags & MSG_TRUNC) || (size_t)n > len;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
            c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
            struct ucred cred;
            memcpy(&cred, CMSG_DATA(c), sizeof cred);
            source->has_credentials = 1;
            source->pid = cred.pid;
            source->uid = cred.uid;
            source->gid = cred.gid;
        }
    }
    return n;
}

ssize_t cshim_netlink_send(int fd, const void *buf, size_t len, uint32_t port_id, uint32_t groups) {
    struct sockaddr_nl addr;
    memset(&addr, 0, sizeof addr);
    addr.nl_family = AF_NETLINK;
    addr.nl_pid = port_id;
    addr.nl_groups = groups;
    ssize_t n;
    do {
        n = sendto(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&addr, sizeof addr);
    } while (n < 0 && errno == EINTR);
    return n;
}

int cshim_poll_readable(int fd, int timeout_ms) {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n;
    do { n = poll(&p, 1, timeout_ms); } while (n < 0 && errno == EINTR);
    return n;
}

int cshim_thread_set_ids(uid_t uid, gid_t gid) {
    if (syscall(SYS_setresgid, gid, gid, gid) != 0) return -1;
    return (int)syscall(SYS_setresuid, uid, uid, uid);
}
