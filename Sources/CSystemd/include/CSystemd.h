// SPDX-License-Identifier: Apache-2.0
// sd-bus, loaded on first use: agentd does not link libsystemd (with its libraries it
// is about 1.2 MB resident, and an agent without a bus never needs it). `csystemd_load` opens
// libsystemd.so.0 once and resolves every function below; each `csd_*` is the sd-bus function of
// the same name after the prefix, with its prototype. Only sd-bus.h's types and prototypes are
// used here. The service notifications and the journal are spoken natively (AgentSystem/Service,
// AgentSystem/Log); nothing else of libsystemd is used.
#ifndef AGENTD_CSYSTEMD_H
#define AGENTD_CSYSTEMD_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/// The library file opened (its soname, as dpkg-shlibdeps would have recorded it).
extern const char *const CSYSTEMD_LIBRARY;

/// Loads libsystemd.so.0 and resolves the sd-bus functions, once per process (thread-safe; later
/// calls return the first call's result). Returns 0, or -1 with what failed (dlopen's or dlsym's
/// message) in `why` — NUL-terminated, cut to `size`.
int csystemd_load(char *why, size_t size);

/// Whether `csystemd_load` has succeeded in this process (for tests and messages).
int csystemd_is_loaded(void);

/// sd_notify(0, state) without libsystemd: one datagram of `size` bytes to the socket at
/// `socket_path` ($NOTIFY_SOCKET: a path, or '@' for an abstract name). Returns 1 when sent,
/// or -errno (-EAFNOSUPPORT for an address of another form).
int csystemd_notify(const char *socket_path, const void *data, size_t size);

/// sd_journal_sendv without libsystemd: `data` is one entry in the native protocol's encoding,
/// sent to the journal's socket (a sealed memfd passed along when too large for a datagram).
/// Returns 0, or -errno.
int csystemd_journal_send(const char *socket_path, const void *data, size_t size);

// Call these only after csystemd_load returned 0.
int csd_bus_open_system(sd_bus **ret);
int csd_bus_new(sd_bus **ret);
int csd_bus_set_address(sd_bus *bus, const char *address);
int csd_bus_set_bus_client(sd_bus *bus, int b);
int csd_bus_start(sd_bus *bus);
sd_bus *csd_bus_unref(sd_bus *bus);
sd_bus *csd_bus_close_unref(sd_bus *bus);
int csd_bus_is_open(sd_bus *bus);
int csd_bus_get_fd(sd_bus *bus);
int csd_bus_get_events(sd_bus *bus);
int csd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec);
int csd_bus_process(sd_bus *bus, sd_bus_message **r);
int csd_bus_call_async(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback,
                       void *userdata, uint64_t usec);
int csd_bus_add_match_async(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback,
                            sd_bus_message_handler_t install_callback, void *userdata);
sd_bus_slot *csd_bus_slot_unref(sd_bus_slot *slot);
int csd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                    const char *interface, const char *member);
sd_bus_message *csd_bus_message_unref(sd_bus_message *m);
int csd_bus_message_set_auto_start(sd_bus_message *m, int b);
int csd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int csd_bus_message_open_container(sd_bus_message *m, char type, const char *contents);
int csd_bus_message_close_container(sd_bus_message *m);
int csd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int csd_bus_message_exit_container(sd_bus_message *m);
int csd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
int csd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
int csd_bus_message_skip(sd_bus_message *m, const char *types);
const sd_bus_error *csd_bus_message_get_error(sd_bus_message *m);
const char *csd_bus_message_get_sender(sd_bus_message *m);
const char *csd_bus_message_get_path(sd_bus_message *m);
const char *csd_bus_message_get_interface(sd_bus_message *m);
const char *csd_bus_message_get_member(sd_bus_message *m);

#endif
