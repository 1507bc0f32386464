// SPDX-License-Identifier: Apache-2.0
// The two datagram protocols agentd speaks to systemd without libsystemd: sd_notify's (a datagram
// to $NOTIFY_SOCKET, sd_notify(3)) and the journal's native one (a datagram of fields to its
// socket, or a sealed memfd passed along when the datagram is too large: systemd.io's
// JOURNAL_NATIVE_PROTOCOL). They do what libsystemd's sd_notify and sd_journal_sendv do.
#define _GNU_SOURCE
#include "CSystemd.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

/// Fills a unix address; a leading '@' names an abstract socket. Returns its length, or -1.
static socklen_t unix_address(struct sockaddr_un *address, const char *path) {
    size_t length = strlen(path);
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (length == 0 || length >= sizeof address->sun_path || (path[0] != '/' && path[0] != '@')) return 0;
    memcpy(address->sun_path, path, length);
    if (path[0] == '@') {
        address->sun_path[0] = '\0';
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + length);
    }
    return (socklen_t)sizeof *address;
}

static ssize_t send_to(int fd, const struct sockaddr_un *address, socklen_t length, const void *data, size_t size,
                       int passed_fd) {
    struct iovec vector = {.iov_base = (void *)data, .iov_len = size};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr message = {.msg_name = (void *)address, .msg_namelen = length};
    if (passed_fd >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = &control;
        message.msg_controllen = sizeof control.bytes;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &passed_fd, sizeof(int));
    } else {
        message.msg_iov = &vector;
        message.msg_iovlen = 1;
    }
    ssize_t sent;
    do {
        sent = sendmsg(fd, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

int csystemd_notify(const char *socket_path, const void *data, size_t size) {
    struct sockaddr_un address;
    socklen_t length = unix_address(&address, socket_path);
    if (length == 0) return -EAFNOSUPPORT;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    ssize_t sent = send_to(fd, &address, length, data, size, -1);
    int result = sent < 0 ? -errno : 1;
    close(fd);
    return result;
}

// One socket for every journal entry of the process, made on first use (as sd-journal keeps one).
static int journal_fd = -1;

static int journal_socket(void) {
    int fd = __atomic_load_n(&journal_fd, __ATOMIC_ACQUIRE);
    if (fd >= 0) return fd;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    // Room for bursts (sd-journal asks for 8 MB; the kernel caps it at wmem_max).
    int buffer = 8 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
    int expected = -1;
    if (!__atomic_compare_exchange_n(&journal_fd, &expected, fd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        close(fd);  // another thread made it first
        return expected;
    }
    return fd;
}

/// A datagram too large for the socket goes as a sealed memfd holding it (what journald accepts).
static int send_as_memfd(int fd, const struct sockaddr_un *address, socklen_t length, const void *data,
                         size_t size) {
    int memory = memfd_create("journal-entry", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (memory < 0) return -errno;
    const char *bytes = data;
    size_t written = 0;
    while (written < size) {
        ssize_t n = write(memory, bytes + written, size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : EIO;
            close(memory);
            return -saved;
        }
        written += (size_t)n;
    }
    int result = 0;
    if (fcntl(memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
        send_to(fd, address, length, NULL, 0, memory) < 0) {
        result = -errno;
    }
    close(memory);
    return result;
}

int csystemd_journal_send(const char *socket_path, const void *data, size_t size) {
    struct sockaddr_un address;
    socklen_t length = unix_address(&address, socket_path);
    if (length == 0) return -EAFNOSUPPORT;
    int fd = journal_socket();
    if (fd < 0) return -errno;
    if (send_to(fd, &address, length, data, size, -1) >= 0) return 0;
    if (errno != EMSGSIZE && errno != ENOBUFS) return -errno;
    return send_as_memfd(fd, &address, length, data, size);
}
