// SPDX-License-Identifier: Apache-2.0
// A stand-in for NetworkManager's Metered property, for agentd's tests only (not installed, not
// a product).
//
// usage: network-manager-stand-in [--metered N] [ADDRESS]
//
// Connects to the bus at ADDRESS, else $DBUS_STARTER_ADDRESS; exports the read-only uint32
// property Metered (an NMMetered: 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no; default 2)
// on /org/freedesktop/NetworkManager, interface org.freedesktop.NetworkManager, requests the
// name org.freedesktop.NetworkManager and prints "ready" once it owns it ("queued" when another
// connection owns it). Each line read on
// stdin that is a number becomes the new value (PropertiesChanged is emitted, with the value);
// "set N" is printed after each change. Exits 0 at the end of stdin, 1 on any bus error.
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include "../StandInSupport/stand_in.h"

static uint32_t metered = 2;
static const char *object_path = "/org/freedesktop/NetworkManager";
static const char *interface_name = "org.freedesktop.NetworkManager";

static int get_metered(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "u", metered);
}

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Metered", "u", get_metered, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END
};

static int fail(const char *what, int r) {
    fprintf(stderr, "network-manager-stand-in: %s: %s\n", what, strerror(-r));
    return 1;
}

static int parse_value(const char *text, uint32_t *value) {
    char *end = NULL;
    errno = 0;
    unsigned long parsed = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || parsed > UINT32_MAX) return -1;
    *value = (uint32_t)parsed;
    return 0;
}

/// A stdin line: a new Metered value, announced with PropertiesChanged.
static int handle_line(sd_bus *bus, char *line) {
    uint32_t value = 0;
    if (parse_value(line, &value) != 0) return 0;
    metered = value;
    int r = sd_bus_emit_properties_changed(bus, object_path, interface_name, "Metered", NULL);
    if (r < 0) return r;
    r = sd_bus_flush(bus);
    if (r < 0) return r;
    printf("set %u\n", metered);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    const char *address = getenv("DBUS_STARTER_ADDRESS");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--metered") == 0 && i + 1 < argc) {
            if (parse_value(argv[++i], &metered) < 0) {
                fprintf(stderr, "network-manager-stand-in: --metered wants a number\n");
                return 2;
            }
        } else {
            address = argv[i];
        }
    }
    if (!address) {
        fprintf(stderr, "usage: network-manager-stand-in [--metered N] [ADDRESS]\n");
        return 2;
    }

    sd_bus *bus = NULL;
    const char *failed = "";
    int r = stand_in_connect(address, &bus, &failed);
    if (r < 0) return fail(failed, r);
    r = sd_bus_add_object_vtable(bus, NULL, object_path, interface_name, vtable, NULL);
    if (r < 0) return fail("sd_bus_add_object_vtable", r);
    // Queued behind an owner, it prints "queued" instead (tests use one as an impostor).
    r = sd_bus_request_name(bus, "org.freedesktop.NetworkManager", SD_BUS_NAME_QUEUE);
    if (r < 0) return fail("sd_bus_request_name", r);
    printf(r > 0 ? "ready\n" : "queued\n");
    fflush(stdout);

    r = stand_in_serve(bus, handle_line, &failed);
    if (r < 0) return fail(failed, r);
    sd_bus_flush_close_unref(bus);
    return 0;
}
