/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What /proc/<pid> of a crashed (hostile) process says: limits (and, on the same selector, the
 * NSpid: and PPid: of status and the uid_map/gid_map lines), auxv, cgroup (units, container),
 * maps (and which of them mountinfo calls remote, and which mount holds a path), stat, syscall,
 * smaps (its VmFlags, Anonymous:, Swap: onto the maps of its own headers) and coredump_filter.
 * The first byte picks the parser; the rest is the file's content. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crash/container.h"
#include "crash/context.h"
#include "selfdump/dump-filter.h"
#include "selfdump/proc-maps.h"
#include "selfdump/proc-threads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size == 0)
                return 0;
        char *text = malloc(size);
        if (!text)
                return 0;
        memcpy(text, data + 1, size - 1);
        text[size - 1] = 0;

        switch (data[0] % 8) {
        case 0: {
                uint64_t soft;
                pid_t pid;
                uint32_t inside;
                (void) parse_limits_core(text, &soft);
                (void) parse_status_nspid(text, &pid);
                (void) parse_status_ppid(text, &pid);
                (void) id_map_to_inside(text, 0, &inside);
                (void) id_map_to_inside(text, 100041, &inside);
                (void) id_map_to_inside(text, UINT32_MAX, &inside);
                break;
        }
        case 1: {
                int secure;
                (void) parse_auxv_at_secure(data + 1, size - 1, &secure);
                break;
        }
        case 2: {
                char *path = NULL, *unit = NULL, *user_unit = NULL, *slice = NULL, *kind = NULL, *name = NULL;
                if (parse_proc_cgroup(text, &path) >= 0 && path) {
                        (void) cgroup_path_to_units(path, &unit, &user_unit, &slice);
                        (void) cgroup_path_to_container(path, strlen(path) / 2, &kind, &name);
                }
                free(path);
                free(kind);
                free(name);
                free(unit);
                free(user_unit);
                free(slice);
                break;
        }
        case 3: {
                struct proc_maps maps = {};
                if (proc_maps_parse(text, &maps) >= 0)
                        proc_maps_done(&maps);
                break;
        }
        case 6: {
                /* The first line is maps, the rest mountinfo. */
                struct proc_maps maps = {};
                char *nl = strchr(text, '\n');
                if (nl) {
                        *nl = 0;
                        if (proc_maps_parse(text, &maps) >= 0) {
                                (void) proc_maps_mark_remote_from(nl + 1, &maps);
                                /* which mount holds each mapped path (the host side of a container's crash) */
                                for (size_t i = 0; i < maps.n; i++)
                                        if (maps.mappings[i].path)
                                                (void) mountinfo_path_is_remote(nl + 1, maps.mappings[i].path);
                                proc_maps_done(&maps);
                        }
                        (void) mountinfo_path_is_remote(nl + 1, "/usr/lib/x86_64-linux-gnu/libc.so.6");
                }
                break;
        }
        case 7: {
                /* coredump_filter's first line, then smaps: its header lines are also the maps. */
                uint32_t filter = 0x33;
                char *nl = strchr(text, '\n');
                if (!nl)
                        break;
                *nl = 0;
                (void) parse_coredump_filter(text, &filter);
                char *smaps = nl + 1, *headers = strdup(smaps), *h = headers;
                if (!headers)
                        break;
                for (const char *l = smaps; *l;) {
                        const char *e = strchr(l, '\n');
                        size_t n = e ? (size_t) (e - l) + 1 : strlen(l);
                        if ((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f')) {
                                memcpy(h, l, n);
                                h += n;
                        }
                        l += n;
                }
                *h = 0;
                struct proc_maps maps = {};
                if (proc_maps_parse(headers, &maps) >= 0) {
                        (void) proc_smaps_annotate(smaps, &maps);
                        for (size_t i = 0; i < maps.n; i++) {
                                struct dump_facts f;
                                dump_facts_of(&maps.mappings[i], &f);
                                (void) dump_extent_of(&f, filter);
                        }
                        proc_maps_done(&maps);
                }
                free(headers);
                break;
        }
        case 4: {
                struct proc_stat st;
                (void) proc_stat_parse(text, &st);
                break;
        }
        default: {
                uint64_t sp, pc;
                (void) proc_syscall_parse(text, &sp, &pc);
                break;
        }
        }
        free(text);
        return 0;
}
