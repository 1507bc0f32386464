// SPDX-License-Identifier: Apache-2.0
// A stand-in for a desktop notification server, for agentd's tests only (not installed, not a
// product).
//
// usage: notifications-stand-in ADDRESS
//
// Connects to the bus at ADDRESS, exports org.freedesktop.Notifications (Notify,
// CloseNotification, GetCapabilities, GetServerInformation) on /org/freedesktop/Notifications,
// requests that name and prints "ready" once it owns it. Every call is printed as one line of
// tab-separated fields:
//   notify  ID  REPLACES_ID  VALUE_HINT(-1: none)  ACTIONS(key,label,...)  EXPIRE  SUMMARY  BODY
//           RECEIVED_AT  APP_NAME  APP_ICON  URGENCY_HINT(-1: none)  DESKTOP_ENTRY_HINT
//   close   ID
// A line "invoke ID KEY" on stdin emits ActionInvoked(ID, KEY) and prints "invoked ID KEY";
// "dismiss ID" emits NotificationClosed(ID, 2) (the user dismissed it) and prints "dismissed ID".
// Exits 0 at the end of stdin, 1 on any bus error.
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include "../StandInSupport/stand_in.h"

static const char *object_path = "/org/freedesktop/Notifications";
static const char *interface_name = "org.freedesktop.Notifications";
static uint32_t last_id = 0;

// Tabs and newlines in a text would break the line format: shown as spaces.
static void print_field(const char *text) {
    putchar('\t');
    for (const char *p = text; *p; p++) putchar(*p == '\t' || *p == '\n' ? ' ' : *p);
}

static int read_actions(sd_bus_message *m, char *out, size_t size) {
    int r = sd_bus_message_enter_container(m, 'a', "s");
    if (r < 0) return r;
    size_t used = 0;
    out[0] = '\0';
    const char *item;
    while ((r = sd_bus_message_read_basic(m, 's', &item)) > 0) {
        int n = snprintf(out + used, size - used, "%s%s", used ? "," : "", item);
        if (n > 0 && (size_t)n < size - used) used += (size_t)n;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

static int read_hints(sd_bus_message *m, int *value, int *urgency, char *entry, size_t entry_size) {
    *value = -1;
    *urgency = -1;
    entry[0] = '\0';
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key;
        r = sd_bus_message_read_basic(m, 's', &key);
        if (r < 0) return r;
        const char *contents = NULL;
        char type;
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0) return r;
        if (strcmp(key, "value") == 0 && contents && strcmp(contents, "i") == 0) {
            r = sd_bus_message_read(m, "v", "i", value);
        } else if (strcmp(key, "urgency") == 0 && contents && strcmp(contents, "y") == 0) {
            uint8_t level;
            r = sd_bus_message_read(m, "v", "y", &level);
            *urgency = level;
        } else if (strcmp(key, "desktop-entry") == 0 && contents && strcmp(contents, "s") == 0) {
            const char *text;
            r = sd_bus_message_read(m, "v", "s", &text);
            if (r >= 0) snprintf(entry, entry_size, "%s", text);
        } else {
            r = sd_bus_message_skip(m, "v");
        }
        if (r < 0) return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

static int method_notify(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    const char *app, *icon, *summary, *body;
    uint32_t replaces;
    int r = sd_bus_message_read(m, "susss", &app, &replaces, &icon, &summary, &body);
    if (r < 0) return r;
    char actions[1024];
    r = read_actions(m, actions, sizeof actions);
    if (r < 0) return r;
    int value, urgency;
    char entry[256];
    r = read_hints(m, &value, &urgency, entry, sizeof entry);
    if (r < 0) return r;
    int32_t expire;
    r = sd_bus_message_read(m, "i", &expire);
    if (r < 0) return r;
    uint32_t id = replaces != 0 ? replaces : ++last_id;
    printf("notify\t%u\t%u\t%d", id, replaces, value);
    print_field(actions);
    printf("\t%d", expire);
    print_field(summary);
    print_field(body);
    // When it arrived (CLOCK_MONOTONIC seconds): the tests time the agent's spacing by the
    // server's clock, not by when they happened to read the line.
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("\t%lld.%09ld", (long long)now.tv_sec, now.tv_nsec);
    print_field(app);
    print_field(icon);
    printf("\t%d", urgency);
    print_field(entry);
    putchar('\n');
    fflush(stdout);
    return sd_bus_reply_method_return(m, "u", id);
}

static int method_close(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    uint32_t id;
    int r = sd_bus_message_read(m, "u", &id);
    if (r < 0) return r;
    printf("close\t%u\n", id);
    fflush(stdout);
    r = sd_bus_emit_signal(sd_bus_message_get_bus(m), object_path, interface_name, "NotificationClosed", "uu", id, 3u);
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, "");
}

static int method_capabilities(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    return sd_bus_reply_method_return(m, "as", 2, "body", "actions");
}

static int method_information(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    return sd_bus_reply_method_return(m, "ssss", "notifications-stand-in", "agentd tests", "1", "1.2");
}

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", method_notify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("CloseNotification", "u", "", method_close, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetCapabilities", "", "as", method_capabilities, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetServerInformation", "", "ssss", method_information, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static int fail(const char *what, int r) {
    fprintf(stderr, "notifications-stand-in: %s: %s\n", what, strerror(-r));
    return 1;
}

static int handle_line(sd_bus *bus, char *line) {
    unsigned id;
    char key[128];
    if (sscanf(line, "dismiss %u", &id) == 1) {
        int r = sd_bus_emit_signal(bus, object_path, interface_name, "NotificationClosed", "uu", (uint32_t)id, 2u);
        if (r < 0) return r;
        r = sd_bus_flush(bus);
        if (r < 0) return r;
        printf("dismissed %u\n", id);
        fflush(stdout);
        return 0;
    }
    if (sscanf(line, "invoke %u %127s", &id, key) != 2) return 0;
    int r = sd_bus_emit_signal(bus, object_path, interface_name, "ActionInvoked", "us", (uint32_t)id, key);
    if (r < 0) return r;
    r = sd_bus_flush(bus);
    if (r < 0) return r;
    printf("invoked %u %s\n", id, key);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: notifications-stand-in ADDRESS\n");
        return 2;
    }
    sd_bus *bus = NULL;
    const char *failed = "";
    int r = stand_in_connect(argv[1], &bus, &failed);
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
