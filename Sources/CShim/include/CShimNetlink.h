// SPDX-License-Identifier: Apache-2.0
// Netlink sockets for AgentSystem/Netlink: creation (also inside another process's network
// namespace), membership, receive with sender address and SCM_CREDENTIALS, send to a port or group.
// Message parsing lives in Swift; nothing here holds state or policy.
#ifndef AGENTD_CSHIM_NETLINK_H
#define AGENTD_CSHIM_NETLINK_H
#include <sys/types.h>
#include <stdint.h>
#include <stddef.h>

extern const int CSHIM_NETLINK_ROUTE, CSHIM_NETLINK_KOBJECT_UEVENT, CSHIM_NETLINK_GENERIC;

/// A non-blocking, close-on-exec raw netlink socket of `protocol` in the caller's network namespace.
int cshim_netlink_socket(int protocol);

/// The same, created inside the network namespace of process `pid` (/proc/PID/ns/net): the calling
/// thread setns()es into it, creates the socket and setns()es back before returning, with no
/// suspension point in between. A socket keeps the namespace it was created in for its whole life.
/// Returns the fd, or -1 with errno (ESRCH/ENOENT: no such process, EPERM: not allowed). If the
/// thread cannot return to its own namespace the process aborts: continuing would run the caller's
/// code in the wrong namespace.
int cshim_netlink_socket_in_netns(pid_t pid, int protocol);

/// Binds to nl_pid 0 (the kernel assigns the port id) and the legacy group bitmask `groups`.
/// On success stores the assigned port id in *port_id.
int cshim_netlink_bind(int fd, uint32_t groups, uint32_t *port_id);

/// NETLINK_ADD_MEMBERSHIP / NETLINK_DROP_MEMBERSHIP for a group number (1-based, any size).
int cshim_netlink_add_membership(int fd, uint32_t group);
int cshim_netlink_drop_membership(int fd, uint32_t group);

/// Sizes the receive buffer: SO_RCVBUFFORCE (needs CAP_NET_ADMIN), falling back to SO_RCVBUF.
/// Returns the size the kernel reports afterwards (it doubles the request), or -1.
int cshim_netlink_set_receive_buffer(int fd, int bytes);

/// SO_PASSCRED on or off: received datagrams then carry the sender's SCM_CREDENTIALS.
int cshim_netlink_pass_credentials(int fd, int on);

/// Generic boolean socket options at SOL_NETLINK (NETLINK_NO_ENOBUFS, NETLINK_EXT_ACK...).
extern const int CSHIM_NETLINK_OPT_NO_ENOBUFS, CSHIM_NETLINK_OPT_EXT_ACK, CSHIM_NETLINK_OPT_GET_STRICT_CHK;
int cshim_netlink_set_option(int fd, int option, int value);

/// What one received datagram came with.
struct cshim_netlink_source {
    uint32_t port_id;       // sender's nl_pid: 0 = the kernel
    uint32_t groups;        // nl_groups it was sent to (0 = unicast)
    int has_credentials;    // 1 when SCM_CREDENTIALS were attached
    pid_t pid;
    uid_t uid;
    gid_t gid;
    int truncated;          // 1 when the datagram was larger than the buffer (MSG_TRUNC)
};

/// recvmsg() without blocking. Returns the datagram's length (which may exceed len when truncated),
/// or -1 with errno: EAGAIN when nothing is queued, ENOBUFS when the kernel dropped datagrams because
/// the receive buffer overflowed (the socket stays usable), EINTR is retried.
ssize_t cshim_netlink_recv(int fd, void *buf, size_t len, struct cshim_netlink_source *source);

/// sendto() a netlink address (port_id 0 = the kernel; groups = legacy group bitmask for a
/// multicast send). Never raises SIGPIPE; does not block on a non-blocking socket.
ssize_t cshim_netlink_send(int fd, const void *buf, size_t len, uint32_t port_id, uint32_t groups);

/// poll() for readability of one fd: 1 readable, 0 timeout, -1 error. EINTR is retried.
int cshim_poll_readable(int fd, int timeout_ms);

/// Sets the real/effective/saved uid and gid of the calling thread only (raw system calls: glibc's
/// wrappers change every thread of the process). Tests use it to send as an unprivileged user.
int cshim_thread_set_ids(uid_t uid, gid_t gid);

#endif
