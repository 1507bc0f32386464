// SPDX-License-Identifier: Apache-2.0
// A stand-in for systemd-logind's sleep, inhibitor and idle interfaces, for agentd's tests only
// (not installed, not a product). It never suspends anything: PrepareForSleep is sent on command.
//
// usage: login1-stand-in [--delay-usec N] [ADDRESS]
//
// Connects to the bus at ADDRESS, else $DBUS_STARTER_ADDRESS; requests org.freedesktop.login1
// and exports on /org/freedesktop/login1 (org.freedesktop.login1.Manager):
//   Inhibit(ssss what, who, why, mode) -> h   a pipe's write end; the stand-in keeps the read
//                                             end and prints "released ..." when every copy of
//                                             the write end is closed (the holder let go)
//   ListInhibitors() -> a(ssssuu)             what, who, why, mode, uid, pid
//   ListSessions() -> a(susso)                id, uid, user name, seat, object path
//   InhibitDelayMaxUSec (t)                   5 s unless --delay-usec or "delay N"
//   PrepareForSleep (b) signal                on "sleep" (true) and "wake" (false)
// and for each session added with "session ID UID SEAT", /org/freedesktop/login1/session/ID
// (org.freedesktop.login1.Session) with IdleHint (b), IdleSinceHint (t, realtime µs),
// LockedHint (b), Id (s), User ((uo)), Seat ((so)), changed with PropertiesChanged.
//
// stdin commands, one per line; each is acknowledged on stdout once its signal is flushed:
//   sleep | wake                  -> "signal PrepareForSleep true|false"
//   delay USEC                    -> "delay USEC"
//   session ID UID SEAT           -> "session ID"
//   idle ID 0|1 [SINCE_USEC]      -> "idle ID 0|1"   (SINCE defaults to now, CLOCK_REALTIME)
//   locked ID 0|1                 -> "locked ID 0|1"
//   list                          -> one "inhibitor what=W who=O mode=M why=Y" per inhibitor, then "end"
// and it prints "ready" once it owns the name, "inhibit what=W who=O mode=M why=Y" when an
// inhibitor is taken, "released what=W who=O mode=M why=Y" when one is let go.
// Exits 0 at the end of stdin, 1 on any bus error.
#define _GNU_SOURCE  // pipe2
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include "../StandInSupport/stand_in.h"

#define MAX_INHIBITORS 32
#define MAX_SESSIONS 8

static const char *manager_path = "/org/freedesktop/login1";
static const char *manager_interface = "org.freedesktop.login1.Manager";
static const char *session_interface = "org.freedesktop.login1.Session";
static uint64_t delay_usec = 5000000;

struct inhibitor {
    int fd;  // the read end; -1: free slot
    char what[64], who[64], why[128], mode[16];
    uint32_t uid, pid;
};
static struct inhibitor inhibitors[MAX_INHIBITORS];

struct session {
    int used;
    char id[32], seat[32], path[96], seat_path[96], user_path[96];
    uint32_t uid;
    int idle, locked;
    uint64_t idle_since;
};
static struct session sessions[MAX_SESSIONS];

static uint64_t now_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void print_inhibitor(const char *verb, const struct inhibitor *i) {
    printf("%s what=%s who=%s mode=%s why=%s\n", verb, i->what, i->who, i->mode, i->why);
    fflush(stdout);
}

static void copy(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

static int method_inhibit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    const char *what, *who, *why, *mode;
    int r = sd_bus_message_read(m, "ssss", &what, &who, &why, &mode);
    if (r < 0) return r;
    if (strcmp(mode, "block") != 0 && strcmp(mode, "delay") != 0)
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid mode specification %s", mode);
    struct inhibitor *slot = NULL;
    for (int i = 0; i < MAX_INHIBITORS; i++) if (inhibitors[i].fd < 0) { slot = &inhibitors[i]; break; }
    if (!slot) return sd_bus_error_set(error, "org.freedesktop.login1.TooManyInhibitors", "too many inhibitors");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) return -errno;
    slot->fd = fds[0];
    copy(slot->what, sizeof slot->what, what);
    copy(slot->who, sizeof slot->who, who);
    copy(slot->why, sizeof slot->why, why);
    copy(slot->mode, sizeof slot->mode, mode);
    slot->uid = 0;
    slot->pid = 0;
    sd_bus_creds *creds = NULL;
    if (sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID, &creds) >= 0) {
        sd_bus_creds_get_euid(creds, &slot->uid);
        pid_t pid = 0;
        if (sd_bus_creds_get_pid(creds, &pid) >= 0) slot->pid = (uint32_t)pid;
        sd_bus_creds_unref(creds);
    }
    r = sd_bus_reply_method_return(m, "h", fds[1]);  // the message holds its own copy
    close(fds[1]);
    if (r < 0) return r;
    print_inhibitor("inhibit", slot);
    return 1;
}

static int method_list_inhibitors(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(m, &reply);
    if (r < 0) return r;
    r = sd_bus_message_open_container(reply, 'a', "(ssssuu)");
    for (int i = 0; r >= 0 && i < MAX_INHIBITORS; i++) {
        if (inhibitors[i].fd < 0) continue;
        const struct inhibitor *x = &inhibitors[i];
        r = sd_bus_message_append(reply, "(ssssuu)", x->what, x->who, x->why, x->mode, x->uid, x->pid);
    }
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

static int method_list_sessions(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(m, &reply);
    if (r < 0) return r;
    r = sd_bus_message_open_container(reply, 'a', "(susso)");
    for (int i = 0; r >= 0 && i < MAX_SESSIONS; i++) {
        if (!sessions[i].used) continue;
        r = sd_bus_message_append(reply, "(susso)", sessions[i].id, sessions[i].uid, "user", sessions[i].seat,
                                  sessions[i].path);
    }
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

static int get_delay(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "t", delay_usec);
}

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Inhibit", "ssss", "h", method_inhibit, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ListInhibitors", "", "a(ssssuu)", method_list_inhibitors, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ListSessions", "", "a(susso)", method_list_sessions, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("InhibitDelayMaxUSec", "t", get_delay, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_SIGNAL("PrepareForSleep", "b", 0),
    SD_BUS_VTABLE_END
};

static struct session *session_at(const char *path) {
    for (int i = 0; i < MAX_SESSIONS; i++) if (sessions[i].used && strcmp(sessions[i].path, path) == 0) return &sessions[i];
    return NULL;
}

static struct session *session_named(const char *id) {
    for (int i = 0; i < MAX_SESSIONS; i++) if (sessions[i].used && strcmp(sessions[i].id, id) == 0) return &sessions[i];
    return NULL;
}

static int get_session(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)interface; (void)userdata;
    struct session *s = session_at(path);
    if (!s) return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "no such session");
    if (strcmp(property, "IdleHint") == 0) return sd_bus_message_append(reply, "b", s->idle);
    if (strcmp(property, "IdleSinceHint") == 0) return sd_bus_message_append(reply, "t", s->idle_since);
    if (strcmp(property, "LockedHint") == 0) return sd_bus_message_append(reply, "b", s->locked);
    if (strcmp(property, "Id") == 0) return sd_bus_message_append(reply, "s", s->id);
    if (strcmp(property, "User") == 0) return sd_bus_message_append(reply, "(uo)", s->uid, s->user_path);
    if (strcmp(property, "Seat") == 0) return sd_bus_message_append(reply, "(so)", s->seat, s->seat_path);
    return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_PROPERTY, "no such property");
}

static const sd_bus_vtable session_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Id", "s", get_session, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("User", "(uo)", get_session, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Seat", "(so)", get_session, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("IdleHint", "b", get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("IdleSinceHint", "t", get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LockedHint", "b", get_session, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END
};

static int fail(const char *what, int r) {
    fprintf(stderr, "login1-stand-in: %s: %s\n", what, strerror(-r));
    return 1;
}

static int parse_u64(const char *text, uint64_t *value) {
    if (!text) return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long parsed = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') return -1;
    *value = (uint64_t)parsed;
    return 0;
}

static int flushed(sd_bus *bus, int r) {
    if (r < 0) return r;
    return sd_bus_flush(bus);
}

/// A stdin line: one command (see the header). Unknown or malformed lines print "error LINE".
static int handle_line(sd_bus *bus, char *line) {
    char *words[5] = { 0 };
    int count = 0;
    for (char *save = NULL, *w = strtok_r(line, " ", &save); w && count < 5; w = strtok_r(NULL, " ", &save))
        words[count++] = w;
    if (count == 0) return 0;
    int r = 0;
    uint64_t number = 0;
    if ((strcmp(words[0], "sleep") == 0 || strcmp(words[0], "wake") == 0) && count == 1) {
        int going = strcmp(words[0], "sleep") == 0;
        r = flushed(bus, sd_bus_emit_signal(bus, manager_path, manager_interface, "PrepareForSleep", "b", going));
        if (r < 0) return r;
        printf("signal PrepareForSleep %s\n", going ? "true" : "false");
    } else if (strcmp(words[0], "delay") == 0 && count == 2 && parse_u64(words[1], &number) == 0) {
        delay_usec = number;
        r = flushed(bus, sd_bus_emit_properties_changed(bus, manager_path, manager_interface, "InhibitDelayMaxUSec", NULL));
        if (r < 0) return r;
        printf("delay %llu\n", (unsigned long long)delay_usec);
    } else if (strcmp(words[0], "session") == 0 && count == 4 && parse_u64(words[2], &number) == 0) {
        struct session *s = NULL;
        for (int i = 0; i < MAX_SESSIONS; i++) if (!sessions[i].used) { s = &sessions[i]; break; }
        if (!s || session_named(words[1])) { printf("error session %s\n", words[1]); fflush(stdout); return 0; }
        memset(s, 0, sizeof *s);
        s->used = 1;
        copy(s->id, sizeof s->id, words[1]);
        copy(s->seat, sizeof s->seat, words[3]);
        s->uid = (uint32_t)number;
        snprintf(s->path, sizeof s->path, "/org/freedesktop/login1/session/_3%s", s->id);
        snprintf(s->seat_path, sizeof s->seat_path, "/org/freedesktop/login1/seat/%s", s->seat);
        snprintf(s->user_path, sizeof s->user_path, "/org/freedesktop/login1/user/_%u", s->uid);
        r = sd_bus_add_object_vtable(bus, NULL, s->path, session_interface, session_vtable, NULL);
        if (r < 0) return r;
        printf("session %s\n", s->id);
    } else if ((strcmp(words[0], "idle") == 0 || strcmp(words[0], "locked") == 0) && count >= 3) {
        struct session *s = session_named(words[1]);
        int value = strcmp(words[2], "1") == 0;
        if (!s) { printf("error no session %s\n", words[1]); fflush(stdout); return 0; }
        int idle = strcmp(words[0], "idle") == 0;
        if (idle) {
            s->idle = value;
            s->idle_since = now_usec();
            if (count >= 4 && parse_u64(words[3], &number) == 0) s->idle_since = number;
            r = sd_bus_emit_properties_changed(bus, s->path, session_interface, "IdleHint", "IdleSinceHint", NULL);
        } else {
            s->locked = value;
            r = sd_bus_emit_properties_changed(bus, s->path, session_interface, "LockedHint", NULL);
        }
        r = flushed(bus, r);
        if (r < 0) return r;
        printf("%s %s %d\n", words[0], s->id, value);
    } else if (strcmp(words[0], "list") == 0) {
        for (int i = 0; i < MAX_INHIBITORS; i++) if (inhibitors[i].fd >= 0) print_inhibitor("inhibitor", &inhibitors[i]);
        printf("end\n");
    } else {
        printf("error %s\n", words[0]);
    }
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    const char *address = getenv("DBUS_STARTER_ADDRESS");
    for (int i = 0; i < MAX_INHIBITORS; i++) inhibitors[i].fd = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--delay-usec") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &delay_usec) < 0) {
                fprintf(stderr, "login1-stand-in: --delay-usec wants a number\n");
                return 2;
            }
        } else {
            address = argv[i];
        }
    }
    if (!address) {
        fprintf(stderr, "usage: login1-stand-in [--delay-usec N] [ADDRESS]\n");
        return 2;
    }

    sd_bus *bus = NULL;
    const char *failed = "";
    int r = stand_in_connect(address, &bus, &failed);
    if (r < 0) return fail(failed, r);
    r = sd_bus_add_object_vtable(bus, NULL, manager_path, manager_interface, manager_vtable, NULL);
    if (r < 0) return fail("sd_bus_add_object_vtable", r);
    r = sd_bus_request_name(bus, "org.freedesktop.login1", 0);
    if (r < 0) return fail("sd_bus_request_name", r);
    printf("ready\n");
    fflush(stdout);

    // stand_in_serve's loop, with the inhibitors' read ends watched for their holders' close.
    char line[256];
    size_t used = 0;
    for (;;) {
        for (;;) {
            r = sd_bus_process(bus, NULL);
            if (r < 0) return fail("sd_bus_process", r);
            if (r == 0) break;
        }
        uint64_t deadline = UINT64_MAX;
        r = sd_bus_get_timeout(bus, &deadline);
        if (r < 0) return fail("sd_bus_get_timeout", r);
        int timeout_ms = -1;
        if (deadline != UINT64_MAX) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            uint64_t now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
            timeout_ms = deadline <= now ? 0 : (int)((deadline - now + 999) / 1000);
        }
        struct pollfd fds[2 + MAX_INHIBITORS];
        fds[0] = (struct pollfd){ .fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus) };
        fds[1] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
        for (int i = 0; i < MAX_INHIBITORS; i++) fds[2 + i] = (struct pollfd){ .fd = inhibitors[i].fd, .events = POLLIN };
        if (poll(fds, 2 + MAX_INHIBITORS, timeout_ms) < 0) {
            if (errno == EINTR) continue;
            return fail("poll", -errno);
        }
        for (int i = 0; i < MAX_INHIBITORS; i++) {
            if (inhibitors[i].fd < 0 || !(fds[2 + i].revents & (POLLHUP | POLLIN | POLLERR))) continue;
            print_inhibitor("released", &inhibitors[i]);
            close(inhibitors[i].fd);
            inhibitors[i].fd = -1;
        }
        if (!(fds[1].revents & (POLLIN | POLLHUP))) continue;
        ssize_t n = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) break;  // end of stdin: quit
        used += (size_t)n;
        char *newline;
        while ((newline = memchr(line, '\n', used)) != NULL) {
            *newline = '\0';
            r = handle_line(bus, line);
            if (r < 0) return fail("handling a command line", r);
            size_t rest = used - (size_t)(newline + 1 - line);
            memmove(line, newline + 1, rest);
            used = rest;
        }
        if (used == sizeof line - 1) used = 0;  // an overlong line: dropped
    }
    sd_bus_flush_close_unref(bus);
    return 0;
}
