/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build-config.h"
#include "shared/cell-ids.h"
#include "shared/cleanup.h"

/* Ranges that are somebody else's (systemd.io/UIDS-GIDS): the 16-bit ids (system, regular,
 * systemd's dynamic users, nobody), the container ranges, the foreign range and what lies above
 * it, the upper half (signedness trouble in too many programs). */
static const struct {
        uint32_t first, last;
        const char *whose;
} assigned[] = {
        { 0, 0xFFFF, "the system's, regular users', systemd's dynamic users' and nobody's" },
        { 0x80000, 0x6FFFFFFF, "the ranges systemd assigns to containers" },
        { 0x7FFE0000, 0xFFFFFFFF, "systemd's foreign range and above" },
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t range_first, range_count;
static uint64_t *used;                  /* a bit per id of the range */
static uint32_t cursor;                 /* the next id tried: ids are handed round, not reused at once */
static unsigned n_held;
static struct binding {
        pid_t pid;
        uint32_t id;
} *bindings;
static size_t n_bindings, n_bindings_alloc;

/* Whether [first, first + count) meets the id range of a line "name:x:ID:..." (ids, 3rd field) or
 * "name:START:COUNT" (subordinate ranges); a line that is neither is skipped. */
static bool file_meets(const char *path, bool subordinate, uint32_t first, uint32_t count, char *what, size_t what_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char line[1024];

        if (!f)
                return false;
        while (fgets(line, sizeof line, f)) {
                /* The fields, empty ones kept: name, then START:COUNT, or password:ID. */
                char *field[4] = {}, *p = line;
                line[strcspn(line, "\n")] = 0;
                for (size_t k = 0; k < 4 && p; k++)
                        field[k] = strsep(&p, ":");
                const char *name = field[0], *a = subordinate ? field[1] : field[2], *b = field[2];
                if (!name || !a || !b)
                        continue;
                char *end;
                errno = 0;
                unsigned long long lo = strtoull(a, &end, 10);
                if (errno != 0 || *end != 0 || end == a)
                        continue;
                unsigned long long n = 1;
                if (subordinate) {
                        n = strtoull(b, &end, 10);
                        if (errno != 0 || *end != 0 || end == b || n == 0)
                                continue;
                }
                if (lo < (unsigned long long) first + count && lo + n > first) {
                        snprintf(what, what_size, "%.200s has \"%.64s\" at %llu%s", path, name, lo, subordinate ? " and up" : "");
                        return true;
                }
        }
        return false;
}

int cell_ids_init_range(const char *root, uint32_t first, uint32_t count, char *why, size_t why_size) {
        static const struct {
                const char *name;
                bool subordinate;
        } files[] = {
                { "etc/passwd", false },
                { "etc/group", false },
                { "etc/subuid", true },
                { "etc/subgid", true },
        };
        uint64_t *bits = NULL;
        int r = 0;

        why[0] = 0;
        if (count > 0 && (uint64_t) first + count - 1 > UINT32_MAX) {
                snprintf(why, why_size, "the range %" PRIu32 "+%" PRIu32 " goes past the last id", first, count);
                r = -ERANGE;
        }
        for (size_t i = 0; r == 0 && count > 0 && i < sizeof assigned / sizeof assigned[0]; i++)
                if (first <= assigned[i].last && first + count - 1 >= assigned[i].first) {
                        snprintf(why, why_size, "the range %" PRIu32 "-%" PRIu32 " overlaps %s (%" PRIu32 "-%" PRIu32 ")",
                                 first, first + count - 1, assigned[i].whose, assigned[i].first, assigned[i].last);
                        r = -ERANGE;
                }
        for (size_t i = 0; r == 0 && count > 0 && i < sizeof files / sizeof files[0]; i++) {
                char path[4096], what[512];
                snprintf(path, sizeof path, "%s/%s", root, files[i].name);
                if (file_meets(path, files[i].subordinate, first, count, what, sizeof what)) {
                        snprintf(why, why_size, "the range %" PRIu32 "-%" PRIu32 " is in use: %s", first, first + count - 1, what);
                        r = -EEXIST;
                }
        }
        if (r == 0 && count > 0) {
                bits = calloc((count + 63) / 64, sizeof *bits);
                if (!bits) {
                        snprintf(why, why_size, "out of memory");
                        r = -ENOMEM;
                }
        }
        pthread_mutex_lock(&lock);
        free(used);
        used = bits;
        range_first = r == 0 ? first : 0;
        range_count = r == 0 ? count : 0;
        cursor = 0;
        n_held = 0;
        n_bindings = 0;
        pthread_mutex_unlock(&lock);
        return r;
}

int cell_ids_init(const char *root, char *why, size_t why_size) {
        return cell_ids_init_range(root, COREDUMPD_CELL_IDS_FIRST, COREDUMPD_CELL_IDS_COUNT, why, why_size);
}

void cell_ids_range(uint32_t *ret_first, uint32_t *ret_count) {
        pthread_mutex_lock(&lock);
        *ret_first = range_first;
        *ret_count = range_count;
        pthread_mutex_unlock(&lock);
}

static void id_free(uint32_t id) {
        uint32_t i = id - range_first;
        if (id < range_first || i >= range_count || !(used[i / 64] & (UINT64_C(1) << (i % 64))))
                return;
        used[i / 64] &= ~(UINT64_C(1) << (i % 64));
        n_held--;
}

int cell_ids_lease(uint32_t *uid, uint32_t *gid, uint32_t *ret_lease) {
        *ret_lease = 0;
        if (!uid || !gid || *uid != CELL_IDS_ANY || *gid != CELL_IDS_ANY)
                return 0;
        pthread_mutex_lock(&lock);
        int r = 0;
        if (range_count == 0)
                goto done;
        r = -EBUSY;
        for (uint32_t k = 0; k < range_count; k++) {
                uint32_t i = (cursor + k) % range_count;
                if (used[i / 64] & (UINT64_C(1) << (i % 64)))
                        continue;
                used[i / 64] |= UINT64_C(1) << (i % 64);
                n_held++;
                cursor = (i + 1) % range_count;
                *ret_lease = *uid = *gid = range_first + i;
                r = 0;
                break;
        }
done:
        pthread_mutex_unlock(&lock);
        return r;
}

void cell_ids_bind(uint32_t lease, pid_t pid) {
        if (lease == 0)
                return;
        pthread_mutex_lock(&lock);
        if (n_bindings == n_bindings_alloc) {
                size_t n = n_bindings_alloc ? 2 * n_bindings_alloc : 64;
                struct binding *grown = realloc(bindings, n * sizeof *grown);
                if (!grown) {
                        /* Not known by its pid: held for good rather than handed to a second child. */
                        pthread_mutex_unlock(&lock);
                        return;
                }
                bindings = grown;
                n_bindings_alloc = n;
        }
        bindings[n_bindings++] = (struct binding) { pid, lease };
        pthread_mutex_unlock(&lock);
}

void cell_ids_return(uint32_t lease) {
        if (lease == 0)
                return;
        pthread_mutex_lock(&lock);
        id_free(lease);
        pthread_mutex_unlock(&lock);
}

void cell_ids_reaped(pid_t pid) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < n_bindings; i++)
                if (bindings[i].pid == pid) {
                        id_free(bindings[i].id);
                        bindings[i] = bindings[--n_bindings];
                        break;
                }
        pthread_mutex_unlock(&lock);
}

unsigned cell_ids_held(void) {
        pthread_mutex_lock(&lock);
        unsigned n = n_held;
        pthread_mutex_unlock(&lock);
        return n;
}
