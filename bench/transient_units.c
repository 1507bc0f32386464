// SPDX-License-Identifier: Apache-2.0
// make bench-peers: systemd's side of the launch-rate figure. Over ONE D-Bus connection — the
// system bus through dbus-daemon ("system"), or a direct address such as systemd's private bus
// (unix:path=/run/systemd/private, which systemctl uses as root) — starts N transient oneshot services running /bin/true with StartTransientUnit, never more
// than MAX started and not yet finished (asynchronous calls; a unit is finished when its JobRemoved
// signal arrives) and at most 100 calls awaiting their reply, and prints the seconds from the first call to the last JobRemoved and how many
// ended "done".
//
//   transient_units system|ADDRESS N MAX
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

static const char prefix[] = "peers-bench-";
static unsigned removed, done, failed, replied;
// dbus-daemon's system bus allows 128 pending replies per connection (max_replies_per_connection).
static const unsigned max_pending_replies = 100;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    uint32_t id;
    const char *job, *unit, *result;
    if (sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0) return 0;
    if (strncmp(unit, prefix, sizeof prefix - 1) != 0) return 0;
    removed++;
    if (strcmp(result, "done") == 0) done++;
    return 0;
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    replied++;
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (e) {  // no job was made, so no JobRemoved comes: count it as finished
        if (failed++ < 3) fprintf(stderr, "transient_units: %s: %s\n", e->name, e->message);
        removed++;
    }
    return 0;
}

static int start_unit(sd_bus *bus, unsigned i) {
    char name[64];
    snprintf(name, sizeof name, "%s%u.service", prefix, i);
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                           "org.freedesktop.systemd1.Manager", "StartTransientUnit");
    if (r < 0) return r;
    r = sd_bus_message_append(m, "ss", name, "fail");
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "(sv)");
    if (r >= 0) r = sd_bus_message_append(m, "(sv)", "Type", "s", "oneshot");
    if (r >= 0) r = sd_bus_message_append(m, "(sv)", "CollectMode", "s", "inactive-or-failed");
    if (r >= 0) r = sd_bus_message_append(m, "(sv)", "ExecStart", "a(sasb)", 1, "/bin/true", 1, "/bin/true", 0);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_append(m, "a(sa(sv))", 0);
    if (r >= 0) r = sd_bus_call_async(bus, NULL, m, on_reply, NULL, 0);
    sd_bus_message_unref(m);
    return r;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s system|ADDRESS N MAX\n", argv[0]);
        return 2;
    }
    unsigned n = (unsigned)strtoul(argv[2], NULL, 10), max = (unsigned)strtoul(argv[3], NULL, 10);
    sd_bus *bus = NULL;
    int r;
    if (strcmp(argv[1], "system") == 0) {  // through dbus-daemon, as an unprivileged client would
        r = sd_bus_open_system(&bus);
    } else {  // a direct connection such as systemd's private bus: no dbus-daemon in between
        r = sd_bus_new(&bus);
        if (r >= 0) r = sd_bus_set_address(bus, argv[1]);
        if (r >= 0) r = sd_bus_start(bus);
    }
    if (r < 0) {
        fprintf(stderr, "transient_units: cannot connect to %s: %s\n", argv[1], strerror(-r));
        return 1;
    }
    r = sd_bus_match_signal(bus, NULL, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                            "JobRemoved", on_job_removed, NULL);
    if (r >= 0) r = sd_bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                       "org.freedesktop.systemd1.Manager", "Subscribe", NULL, NULL, "");
    if (r < 0) {
        fprintf(stderr, "transient_units: cannot subscribe: %s\n", strerror(-r));
        return 1;
    }
    unsigned sent = 0;
    double t0 = now(), deadline = t0 + 600;
    while (removed < n) {
        while (sent < n && sent - removed < max && sent - replied < max_pending_replies) {
            if ((r = start_unit(bus, sent)) < 0) {
                fprintf(stderr, "transient_units: StartTransientUnit: %s\n", strerror(-r));
                return 1;
            }
            sent++;
        }
        r = sd_bus_process(bus, NULL);
        if (r < 0) {
            fprintf(stderr, "transient_units: the connection failed: %s\n", strerror(-r));
            return 1;
        }
        if (r == 0 && (r = sd_bus_wait(bus, 1000000)) < 0 && r != -EINTR) {
            fprintf(stderr, "transient_units: wait: %s\n", strerror(-r));
            return 1;
        }
        if (now() > deadline) {
            fprintf(stderr, "transient_units: gave up after 600 s: %u of %u finished\n", removed, n);
            return 1;
        }
    }
    printf("%.6f %u %u\n", now() - t0, done, failed);
    sd_bus_flush_close_unref(bus);
    return done == n ? 0 : 1;
}
