// SPDX-License-Identifier: Apache-2.0
#include "CSystemd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

const char *const CSYSTEMD_LIBRARY = "libsystemd.so.0";

// Every sd-bus function agentd calls: return type, name, parameters, arguments. The pointers
// take the real prototypes from sd-bus.h (__typeof__), so a mismatch is a compile error.
#define CSD_FUNCTIONS(X)                                                                              \
    X(int, sd_bus_open_system, (sd_bus **ret), (ret))                                                 \
    X(int, sd_bus_new, (sd_bus **ret), (ret))                                                         \
    X(int, sd_bus_set_address, (sd_bus *bus, const char *address), (bus, address))                    \
    X(int, sd_bus_set_bus_client, (sd_bus *bus, int b), (bus, b))                                     \
    X(int, sd_bus_start, (sd_bus *bus), (bus))                                                        \
    X(sd_bus *, sd_bus_unref, (sd_bus *bus), (bus))                                                   \
    X(sd_bus *, sd_bus_close_unref, (sd_bus *bus), (bus))                                             \
    X(int, sd_bus_is_open, (sd_bus *bus), (bus))                                                      \
    X(int, sd_bus_get_fd, (sd_bus *bus), (bus))                                                       \
    X(int, sd_bus_get_events, (sd_bus *bus), (bus))                                                   \
    X(int, sd_bus_get_timeout, (sd_bus *bus, uint64_t *timeout_usec), (bus, timeout_usec))            \
    X(int, sd_bus_process, (sd_bus *bus, sd_bus_message **r), (bus, r))                               \
    X(int, sd_bus_call_async,                                                                         \
      (sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback,         \
       void *userdata, uint64_t usec),                                                                \
      (bus, slot, m, callback, userdata, usec))                                                       \
    X(int, sd_bus_add_match_async,                                                                    \
      (sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback,         \
       sd_bus_message_handler_t install_callback, void *userdata),                                    \
      (bus, slot, match, callback, install_callback, userdata))                                       \
    X(sd_bus_slot *, sd_bus_slot_unref, (sd_bus_slot *slot), (slot))                                  \
    X(int, sd_bus_message_new_method_call,                                                            \
      (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,                    \
       const char *interface, const char *member),                                                    \
      (bus, m, destination, path, interface, member))                                                 \
    X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m))                               \
    X(int, sd_bus_message_set_auto_start, (sd_bus_message *m, int b), (m, b))                         \
    X(int, sd_bus_message_append_basic, (sd_bus_message *m, char type, const void *p), (m, type, p))  \
    X(int, sd_bus_message_open_container, (sd_bus_message *m, char type, const char *contents),      \
      (m, type, contents))                                                                            \
    X(int, sd_bus_message_close_container, (sd_bus_message *m), (m))                                  \
    X(int, sd_bus_message_enter_container, (sd_bus_message *m, char type, const char *contents),     \
      (m, type, contents))                                                                            \
    X(int, sd_bus_message_exit_container, (sd_bus_message *m), (m))                                   \
    X(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents),         \
      (m, type, contents))                                                                            \
    X(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p))          \
    X(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types))                   \
    X(const sd_bus_error *, sd_bus_message_get_error, (sd_bus_message *m), (m))                       \
    X(const char *, sd_bus_message_get_sender, (sd_bus_message *m), (m))                              \
    X(const char *, sd_bus_message_get_path, (sd_bus_message *m), (m))                                \
    X(const char *, sd_bus_message_get_interface, (sd_bus_message *m), (m))                           \
    X(const char *, sd_bus_message_get_member, (sd_bus_message *m), (m))

#define CSD_POINTER(type, name, params, args) __typeof__(name) *name;
static struct {
    CSD_FUNCTIONS(CSD_POINTER)
} table;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[512];

static int resolve(void *library, const char *name, void **slot) {
    dlerror();
    *slot = dlsym(library, name);
    if (*slot != NULL) return 0;
    const char *why = dlerror();
    snprintf(failure, sizeof failure, "%s has no %s (%s)", CSYSTEMD_LIBRARY, name, why ? why : "no such symbol");
    return -1;
}

static void load_once(void) {
    // RTLD_LOCAL: its symbols serve only these pointers; RTLD_NOW: a missing one fails here.
    void *library = dlopen(CSYSTEMD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why ? why : "dlopen failed");
        return;
    }
#define CSD_RESOLVE(type, name, params, args) \
    if (resolve(library, #name, (void **)&table.name) != 0) return;
    CSD_FUNCTIONS(CSD_RESOLVE)
    // Kept open for the life of the process: sd-bus objects live in it.
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

int csystemd_load(char *why, size_t size) {
    pthread_once(&once, load_once);
    if (csystemd_is_loaded()) return 0;
    if (why != NULL && size > 0) snprintf(why, size, "%s", failure);
    return -1;
}

int csystemd_is_loaded(void) {
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

#define CSD_WRAPPER(type, name, params, args) \
    type c##name params { return table.name args; }
CSD_FUNCTIONS(CSD_WRAPPER)
