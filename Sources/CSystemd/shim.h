// SPDX-License-Identifier: Apache-2.0
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
