/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dumpctl's crashes: gathering the entries from journal and store, matching them, selecting one. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "config/config.h"
#include "dumpctl.h"
#include "shared/cleanup.h"
#include "shared/log.h"

static bool entry_matches(const struct entry *d) {
        if (arg.since && d->time_usec < arg.since)
                return false;
        if (arg.until && d->time_usec > arg.until)
                return false;

        /* Matches on the same field are alternatives, different fields must all hold. */
        for (size_t i = 0; i < arg.n_matches; i++) {
                bool ok = false, seen = false;
                for (size_t k = 0; k < arg.n_matches; k++) {
                        if (strcmp(arg.matches[k].field, arg.matches[i].field) != 0)
                                continue;
                        if (k < i) {
                                seen = true; /* this field was decided already */
                                break;
                        }
                        const char *v = fields_get_name(&d->fields, arg.matches[k].field);
                        if (v && strcmp(v, arg.matches[k].value) == 0)
                                ok = true;
                }
                if (!seen && !ok)
                        return false;
        }
        return true;
}

/* Non-root users see only their own crashes. */
static bool entry_visible(const struct entry *d) {
        uid_t uid = getuid();
        return uid == 0 || (d->uid >= 0 && (uid_t) d->uid == uid);
}

char *store_path(void) {
        if (arg.store)
                return strdup(arg.store);

        struct config config;
        config_init_defaults(&config);
        (void) config_load(&config, arg.config ?: COREDUMPD_CONFIG_FILE, arg.config != NULL);
        char *p = config.storage ? strdup(config.storage) : NULL;
        config_done(&config);
        return p;
}

/* All recorded crashes the caller may see that match; *ret_hidden counts matching ones of others. */
int gather(struct entry_list *ret, size_t *ret_hidden) {
        struct entry_list all = {};
        int r;

        if (arg.use_journal) {
                sd_journal *j = NULL;
                r = arg.directory ? sd_journal_open_directory(&j, arg.directory, 0)
                                  : sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
                if (r < 0)
                        log_warning_errno(r, "Cannot open the journal, listing the store only: %m");
                else {
                        r = entry_list_load_journal(&all, j, arg.directory != NULL);
                        sd_journal_close(j);
                        if (r < 0)
                                log_warning_errno(r, "Reading the journal failed: %m");
                }
        }

        _cleanup_free_ char *store = store_path();
        if (!store)
                return log_error_errno(ENOMEM, "%m");
        r = entry_list_load_store(&all, store);
        if (r < 0 && r != -ENOENT && !(r == -EACCES && getuid() != 0))
                log_warning_errno(r, "Cannot list the store %s: %m", store);

        entry_list_finish(&all);

        struct entry_list l = {};
        size_t hidden = 0;
        for (size_t i = 0; i < all.n; i++) {
                struct entry *d = &all.entries[i];
                if (!entry_matches(d))
                        continue;
                if (!entry_visible(d)) {
                        hidden++;
                        continue;
                }
                struct entry *grown = realloc(l.entries, (l.n + 1) * sizeof *grown);
                if (!grown) {
                        entry_list_done(&l);
                        entry_list_done(&all);
                        return log_error_errno(ENOMEM, "%m");
                }
                l.entries = grown;
                l.entries[l.n++] = *d;
                *d = (struct entry) {};
        }
        entry_list_done(&all);

        if (arg.reverse)
                for (size_t i = 0; i < l.n / 2; i++) {
                        struct entry t = l.entries[i];
                        l.entries[i] = l.entries[l.n - 1 - i];
                        l.entries[l.n - 1 - i] = t;
                }
        *ret = l;
        if (ret_hidden)
                *ret_hidden = hidden;
        return 0;
}

int no_dump_status(size_t hidden) {
        if (hidden > 0) {
                log_error("Permission denied: the matching crash%s belong%s to another user.", hidden > 1 ? "es" : "",
                          hidden > 1 ? "" : "s");
                return EXIT_PERMISSION;
        }
        log_error("No matching crash recorded.");
        return EXIT_NO_DUMP;
}

const char *field_or(const struct entry *d, const char *field, const char *fallback) {
        const char *v = fields_get_name(&d->fields, field);
        return v && *v ? v : fallback;
}

/* The newest matching crash with a core; a clear status when there is none. */
int select_dump(struct entry_list *l, const struct entry **ret) {
        size_t hidden = 0;

        if (arg.n_matches > 0 && arg.reverse) {
                log_error("-r makes no sense here: the newest match is used.");
                return EXIT_USAGE;
        }
        if (gather(l, &hidden) < 0)
                return EXIT_ERROR;
        if (l->n == 0)
                return no_dump_status(hidden);

        const struct entry *best = NULL;
        for (size_t i = 0; i < l->n; i++)
                if (l->entries[i].presence != ENTRY_NONE &&
                    (!best || (arg.reverse ? l->entries[i].time_usec > best->time_usec
                                           : l->entries[i].time_usec >= best->time_usec)))
                        best = &l->entries[i];
        if (!best) {
                const struct entry *d = &l->entries[arg.reverse ? 0 : l->n - 1];
                log_error("Crash of pid %lld (%s) has no core: action %s, result %s.", d->pid,
                          field_or(d, "COREDUMP_COMM", "n/a"), field_or(d, "COREDUMPD_ACTION", "?"),
                          field_or(d, "COREDUMPD_RESULT", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (best->presence == ENTRY_MISSING) {
                log_error("The core of pid %lld (%s) is gone (vacuumed or removed): %s", best->pid,
                          field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_FILENAME", "?"));
                return EXIT_NOT_PRESENT;
        }
        if (best->presence == ENTRY_INACCESSIBLE) {
                log_error("Permission denied: the core of pid %lld (%s) is not readable for you: %s", best->pid,
                          field_or(best, "COREDUMP_COMM", "n/a"), field_or(best, "COREDUMP_FILENAME", "?"));
                return EXIT_PERMISSION;
        }
        *ret = best;
        return EXIT_OK;
}
