// SPDX-License-Identifier: Apache-2.0
// A stand-in for power-profiles-daemon, for agentd's tests only (not installed, not a product).
//
// usage: power-profiles-stand-in [--upower] [--profile NAME] [ADDRESS]
//
// Connects to the bus at ADDRESS, else $DBUS_STARTER_ADDRESS; exports the read-write string
// property ActiveProfile on /net/hadess/PowerProfiles, interface net.hadess.PowerProfiles
// (with --upower: /org/freedesktop/UPower/PowerProfiles, org.freedesktop.UPower.PowerProfiles),
// requests the name of the same spelling and prints "ready" once it owns it. Each line read on
// stdin becomes the new profile (PropertiesChanged is emitted), as does a D-Bus property Set;
// "set NAME" is printed after each change. Exits 0 at the end of stdin, 1 on any bus error.
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include "../StandInSupport/stand_in.h"

static char profile[256] = "balanced";
static const char *object_path = "/net/hadess/PowerProfiles";
static const char *interface_name = "net.hadess.PowerProfiles";

static int get_profile(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "s", profile);
}

static void announce(void) {
    printf("set %s\n", profile);
    fflush(stdout);
}

static int set_profile(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    const char *text = NULL;
    int r = sd_bus_message_read(value, "s", &text);
    if (r < 0) return r;
    snprintf(profile, sizeof profile, "%s", text);
    // SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE only annotates the property: the signal is ours to send.
    r = sd_bus_emit_properties_changed(bus, object_path, interface_name, "ActiveProfile", NULL);
    if (r < 0) return r;
    announce();
    return 0;
}

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_WRITABLE_PROPERTY("ActiveProfile", "s", get_profile, set_profile, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END
};

static int fail(const char *what, int r) {
    fprintf(stderr, "power-profiles-stand-in: %s: %s\n", what, strerror(-r));
    return 1;
}

/// A stdin line: a new ActiveProfile, announced with PropertiesChanged (an empty line: none).
static int handle_line(sd_bus *bus, char *line) {
    if (line[0] == '\0') return 0;
    snprintf(profile, sizeof profile, "%s", line);
    int r = sd_bus_emit_properties_changed(bus, object_path, interface_name, "ActiveProfile", NULL);
    if (r < 0) return r;
    r = sd_bus_flush(bus);
    if (r < 0) return r;
    announce();
    return 0;
}

int main(int argc, char **argv) {
    const char *address = getenv("DBUS_STARTER_ADDRESS");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--upower") == 0) {
            object_path = "/org/freedesktop/UPower/PowerProfiles";
            interface_name = "org.freedesktop.UPower.PowerProfiles";
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            snprintf(profile, sizeof profile, "%s", argv[++i]);
        } else {
            address = argv[i];
        }
    }
    if (!address) {
        fprintf(stderr, "usage: power-profiles-stand-in [--upower] [--profile NAME] [ADDRESS]\n");
        return 2;
    }

    sd_bus *bus = NULL;
    const char *failed = "";
    int r = stand_in_connect(address, &bus, &failed);
    if (r < 0) return fail(failed, r);
    r = sd_bus_add_object_vtable(bus, NULL, object_path, interface_name, vtable, NULL);
    if (r < 0) return fail("sd_bus_add_object_vtable", r);
    r = sd_bus_request_name(bus, interface_name, 0);
    if (r < 0) return fail("sd_bus_request_name", r);
    printf("ready\n");
    fflush(stdout);

    r = stand_in_serve(bus, handle_line, &failed);
    if (r < 0) return fail(failed, r);
    sd_bus_flush_close_unref(bus);
    return 0;
}
