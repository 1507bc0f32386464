// SPDX-License-Identifier: Apache-2.0
#include <inotifytools/inotifytools.h>
#include <inotifytools/inotify.h>
