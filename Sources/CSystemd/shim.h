// SPDX-License-Identifier: Apache-2.0
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
// The plain sd_journal_sendv (the macro form adds CODE_FILE= of this header, not of the caller).
#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>
