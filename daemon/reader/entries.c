/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "config/config.h"
#include "reader/entries.h"
#include "store/store.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"
#include "shared/names.h"
#include "shared/strv.h"

void entry_done(struct entry *d) {
        fields_done(&d->fields);
        free(d->cursor);
        d->cursor = NULL;
}

void entry_list_done(struct entry_list *l) {
        for (size_t i = 0; i < l->n; i++)
                entry_done(&l->entries[i]);
        free(l->entries);
        *l = (struct entry_list) {};
}

/* Moves *d into the list; on failure *d is freed. */
static int entry_list_append(struct entry_list *l, struct entry *d) {
        if (l->n == l->allocated) {
                size_t want = l->allocated ? 2 * l->allocated : 64;
                struct entry *grown = reallocarray(l->entries, want, sizeof *grown);
                if (!grown) {
                        entry_done(d);
                        return -ENOMEM;
                }
                l->entries = grown;
                l->allocated = want;
        }
        l->entries[l->n++] = *d;
        *d = (struct entry) {};
        return 0;
}

static long long field_number(const struct fields *f, enum field field) {
        const char *v = fields_get(f, field);
        char *end;

        if (!v || !*v)
                return -1;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        return errno || *end || n < 0 ? -1 : n;
}

/* pid, uid, signal and time from the fields. */
static void entry_parse_fields(struct entry *d, uint64_t fallback_time) {
        long long t = field_number(&d->fields, FIELD_TIMESTAMP);
        long long sig = field_number(&d->fields, FIELD_SIGNAL);

        d->pid = field_number(&d->fields, FIELD_PID);
        d->uid = field_number(&d->fields, FIELD_UID);
        d->signal = sig > 0 && sig < 256 ? (int) sig : 0;
        d->time_usec = t > 0 ? (uint64_t) t : fallback_time;
}

/* ---- the journal ----------------------------------------------------------------------------- */

static void sanitize_controls(char *p, size_t n) {
        for (size_t i = 0; i < n; i++) {
                unsigned char b = (unsigned char) p[i];
                if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7f)
                        p[i] = '?';
                else if (b == 0xc2 && i + 1 < n && (unsigned char) p[i + 1] >= 0x80 && (unsigned char) p[i + 1] <= 0x9f) {
                        p[i] = '?';
                        p[i + 1] = '?';
                        i++;
                }
        }
}

/* Whether id (32 hex digits) is this machine's /etc/machine-id. Without one, every id is ours. */
static bool is_local_machine(const char *id) {
        static char local[SD_ID128_STRING_MAX];
        static int known = -1;
        if (known < 0) {
                sd_id128_t m;
                known = sd_id128_get_machine(&m) >= 0;
                if (known)
                        sd_id128_to_string(m, local);
        }
        return !known || strcasecmp(id, local) == 0;
}

bool entry_claims_this_machine(const struct entry *d) {
        const char *machine = fields_get_name(&d->fields, "_MACHINE_ID");
        return !machine || is_local_machine(machine);
}

/* Whether a record of systemd-coredump's came from where systemd-coredump sends it: root (a crash
 * of root's), the crashing user (it drops to the crashing uid before it sends), or its own user
 * (for system users' crashes). Anything else is some user's forgery about another. */
static bool systemd_coredump_sender_ok(const struct entry *d) {
        const char *sender = fields_get_name(&d->fields, "_UID");
        const char *crashed = fields_get(&d->fields, FIELD_UID);
        if (!sender || strcmp(sender, "0") == 0 || (crashed && strcmp(sender, crashed) == 0))
                return true;
        static long own = -2;
        if (own == -2) {
                struct passwd *pw = getpwnam("systemd-coredump");
                own = pw ? (long) pw->pw_uid : -1;
        }
        char buf[24];
        snprintf(buf, sizeof buf, "%ld", own);
        return own >= 0 && strcmp(sender, buf) == 0;
}

static bool field_is(const void *data, size_t size, const char *name, const char *value) {
        size_t n = strlen(name), v = value ? strlen(value) : 0;
        if (size < n + 1 || memcmp(data, name, n) != 0 || ((const char *) data)[n] != '=')
                return false;
        return !value || (size == n + 1 + v && memcmp((const char *) data + n + 1, value, v) == 0);
}

static int entry_from_journal(sd_journal *j, enum journal_files files, struct entry *ret) {
        struct entry d = { .source = ENTRY_SOURCE_JOURNAL };
        const void *data;
        size_t size;
        bool ours = false, from_root = false, from_caller = false, by_systemd_coredump = false,
             coredumpctl_id = false;
        char caller[16];
        int caller_len = snprintf(caller, sizeof caller, "_UID=%u", (unsigned) getuid());
        uint64_t realtime = 0;
        int r;

        SD_JOURNAL_FOREACH_DATA(j, data, size) {
                const char *eq = memchr(data, '=', size);
                if (!eq)
                        continue;
                size_t klen = (size_t) (eq - (const char *) data);
                const char *binary = field_name(FIELD_COREDUMP);
                if (klen == strlen(binary) && memcmp(data, binary, klen) == 0) {
                        /* The compact core: bytes (and only the first of them, the journal's data
                         * threshold), no text. Its presence is noted; entry_write_journal_core()
                         * reads it when it is wanted. */
                        d.journal_core = true;
                        continue;
                }
                if (klen == strlen(field_name(FIELD_ACTION)) && memcmp(data, field_name(FIELD_ACTION), klen) == 0)
                        ours = true;
                if (field_is(data, size, "SYSLOG_IDENTIFIER", "systemd-coredump"))
                        by_systemd_coredump = true;
                if (field_is(data, size, "MESSAGE_ID", COREDUMP_MESSAGE_ID))
                        coredumpctl_id = true;
                if (klen == 4 && memcmp(data, "_UID", 4) == 0) {
                        from_root = size == 6 && ((const char *) data)[5] == '0';
                        from_caller = size == (size_t) caller_len && memcmp(data, caller, size) == 0;
                }
                r = fields_add_raw(&d.fields, data, size);
                if (r < 0) {
                        entry_done(&d);
                        return r;
                }
                /* Terminal controls (C0 but newline and tab, DEL, C1 as UTF-8) never reach a
                 * terminal: anyone may write an entry into their own journal. In our copy: the
                 * journal's data is mapped read-only. */
                struct iovec *last = &d.fields.v[d.fields.n - 1];
                if (last->iov_len > klen)
                        sanitize_controls((char *) last->iov_base + klen + 1, last->iov_len - klen - 1);
        }

        /* Only entries coredumpd wrote: anyone may log a MESSAGE_ID, only root's carry _UID=0. An
         * entry without _UID (a journal file made by hand) is listed, as foreign. A user's own
         * entries too (the copy coredumpd files in their journal, crash/record.h), for that user
         * only, and as foreign: what they name is opened only inside the store, with their rights.
         * And systemd-coredump's records, read-only (struct entry: systemd_coredump). */
        bool has_uid = fields_get_name(&d.fields, "_UID") != NULL;
        bool users_own = has_uid && !from_root && from_caller && getuid() != 0;
        d.systemd_coredump = !ours && by_systemd_coredump && coredumpctl_id;
        if (d.systemd_coredump ? !systemd_coredump_sender_ok(&d) : !ours || (has_uid && !from_root && !users_own)) {
                entry_done(&d);
                return -ENOMSG;
        }
        /* Local or foreign, decided here once: _UID=0 proves root sent it only in this machine's own
         * system journal; a container's root writes its linked journal (--all) byte by byte. */
        d.foreign = d.systemd_coredump || !(files == JOURNAL_LOCAL_SYSTEM && from_root);
        /* Remote: nothing it names is opened, only its compact core read: another machine's record,
         * and a foreign one in files the user did not name (--all) but the caller's own copy; of
         * systemd-coredump's, one in another machine's directory (--all). */
        const char *machine = fields_get_name(&d.fields, "_MACHINE_ID");
        bool unnamed = files == JOURNAL_FOUND || files == JOURNAL_LOCAL;
        d.found = d.systemd_coredump ? files == JOURNAL_FOUND : unnamed && d.foreign && !users_own;
        d.remote = (machine && !is_local_machine(machine)) || d.found;
        (void) sd_journal_get_realtime_usec(j, &realtime);
        entry_parse_fields(&d, realtime);
        if (d.journal_core) {
                long long n = field_number(&d.fields, FIELD_JOURNAL_CORE_SIZE);
                d.journal_core_size = n > 0 ? (uint64_t) n : 0;
        }
        r = sd_journal_get_cursor(j, &d.cursor);
        if (r < 0) {
                entry_done(&d);
                return r;
        }
        *ret = d;
        return 0;
}

/* ---- duplicates: one entry per crash id, one per stored file ---------------------------------- */

/* Looking each new entry up in the whole list made reading a collector's journal of n records O(n²):
 * these sort pointers to the keys once and search them (the keys are heap strings of the entries'
 * fields: they stay put while the entries array grows). */
struct keyed {
        const char *key;
        size_t i;       /* the entry's index */
};

static int keyed_compare(const void *a, const void *b) {
        const struct keyed *x = a, *y = b;
        int c = strcmp(x->key, y->key);
        return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int keyed_compare_key(const void *a, const void *b) {
        return strcmp(((const struct keyed *) a)->key, ((const struct keyed *) b)->key);
}

/* The entries of l that have a key (key_of non-NULL), sorted by key and then index; *ret_n of them. */
static struct keyed *keys_sorted(const struct entry_list *l, const char *(*key_of)(const struct entry *),
                                 size_t *ret_n) {
        struct keyed *k = malloc((l->n ? l->n : 1) * sizeof *k);
        size_t n = 0;

        if (!k)
                return NULL;
        for (size_t i = 0; i < l->n; i++) {
                const char *key = key_of(&l->entries[i]);
                if (key)
                        k[n++] = (struct keyed) { .key = key, .i = i };
        }
        qsort(k, n, sizeof *k, keyed_compare);
        *ret_n = n;
        return k;
}

static const char *entry_crash_id(const struct entry *d) {
        const char *id = fields_get(&d->fields, FIELD_CRASH_ID);
        return id && *id ? id : NULL;
}

/* The name of the store file an entry names (COREDUMP_FILENAME's last part), or NULL. */
static const char *entry_file_name(const struct entry *d) {
        const char *f = fields_get(&d->fields, FIELD_FILENAME);
        const char *base = f ? strrchr(f, '/') : NULL;
        return base && base[1] ? base + 1 : NULL;
}

/* A user who reads the system journal too sees a crash twice, and a collector gets the last record
 * again after journal-upload restarts: one entry per crash id is kept, the first, or the first
 * trusted one where the first is foreign. */
static int entry_list_drop_repeated_crashes(struct entry_list *l) {
        size_t n, kept = 0;
        _cleanup_free_ struct keyed *k = keys_sorted(l, entry_crash_id, &n);
        _cleanup_free_ bool *drop = calloc(l->n ? l->n : 1, sizeof *drop);

        if (!k || !drop)
                return -ENOMEM;
        for (size_t g = 0, end; g < n; g = end) {
                size_t keep = k[g].i;
                for (end = g + 1; end < n && strcmp(k[end].key, k[g].key) == 0; end++)
                        ;
                for (size_t m = g; m < end && l->entries[keep].foreign; m++)
                        if (!l->entries[k[m].i].foreign)
                                keep = k[m].i;
                for (size_t m = g; m < end; m++)
                        drop[k[m].i] = k[m].i != keep;
        }
        for (size_t i = 0; i < l->n; i++) {
                if (drop[i])
                        entry_done(&l->entries[i]);
                else
                        l->entries[kept++] = l->entries[i];
        }
        l->n = kept;
        return 0;
}

static const char *entry_cursor(const struct entry *d) {
        return d->cursor;
}

int entry_list_load_journal(struct entry_list *l, sd_journal *j, enum journal_files files) {
        size_t n_listed = 0;
        /* The entries listed before (the trusted files' ones, when j is every file: a record read
         * there is not read again as foreign). */
        bool local_system = files == JOURNAL_LOCAL_SYSTEM;
        _cleanup_free_ struct keyed *listed = local_system ? NULL : keys_sorted(l, entry_cursor, &n_listed);
        _cleanup_free_ char *cursor = NULL;
        int r;

        if (!local_system && !listed)
                return -ENOMEM;
        sd_journal_flush_matches(j);
        /* coredumpctl's id (our records, the users' copies, systemd-coredump's), and ours (a system
         * journal record whose copy carries coredumpctl's, crash/record.h): either. */
        r = sd_journal_add_match(j, "MESSAGE_ID=" COREDUMP_MESSAGE_ID, 0);
        if (r >= 0)
                r = sd_journal_add_match(j, "MESSAGE_ID=" COREDUMPD_MESSAGE_ID, 0);
        if (r < 0)
                return r;
        r = sd_journal_seek_head(j);
        if (r < 0)
                return r;

        for (;;) {
                struct entry d;

                r = sd_journal_next(j);
                if (r < 0)
                        return r;
                if (r == 0)
                        return entry_list_drop_repeated_crashes(l);
                if (n_listed > 0) {
                        free(cursor);
                        cursor = NULL;
                        r = sd_journal_get_cursor(j, &cursor);
                        if (r < 0)
                                return r;
                        if (bsearch(&(struct keyed) { .key = cursor }, listed, n_listed, sizeof *listed,
                                    keyed_compare_key))
                                continue;
                }
                r = entry_from_journal(j, files, &d);
                if (r == -ENOMSG)
                        continue;
                if (r < 0)
                        return r;
                r = entry_list_append(l, &d);
                if (r < 0)
                        return r;
        }
}

/* ---- the store ------------------------------------------------------------------------------- */

int entry_read_xattrs(int dir_fd, const char *name, struct fields *f) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        char proc[64];
        int found = 0;

        if (fd < 0)
                return negative_errno();
        /* An O_PATH fd takes no *xattr() calls; its /proc/self/fd link does, without following. */
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);

        for (enum field i = 0; i < _FIELD_MAX; i++) {
                char value[4096];

                if (!field_table[i].xattr)
                        continue;
                ssize_t n = getxattr(proc, field_table[i].xattr, value, sizeof value - 1);
                if (n < 0) {
                        if (errno == ENODATA || errno == ERANGE)
                                continue;
                        if (errno == EOPNOTSUPP || errno == ENOTSUP)
                                return 0;
                        return negative_errno();
                }
                value[n] = 0;
                int k = fields_add(f, field_name(i), "%s", value);
                if (k < 0)
                        return k;
                found++;
        }
        return found;
}

int entry_parse_file_name(const char *name, struct fields *f) {
        _cleanup_(strv_freep) char **parts = NULL;
        size_t n;

        if (strncmp(name, "core.", 5) != 0)
                return -EINVAL;
        parts = strv_split(name, ".");
        if (!parts)
                return -ENOMEM;
        n = strv_length(parts);
        /* core COMM UID BOOTID PID USEC [zst]: the comm is escaped, it holds no '.' */
        if (n == 7 && strcmp(parts[6], "zst") == 0)
                n = 6;
        if (n != 6 || strlen(parts[3]) != 32)
                return -EINVAL;
        for (size_t i = 2; i < 6; i++)
                if (i != 3 && strspn(parts[i], "0123456789") != strlen(parts[i]))
                        return -EINVAL;

        int k = 0;
        k = k ?: fields_add(f, field_name(FIELD_COMM), "%s", parts[1]);
        k = k ?: fields_add(f, field_name(FIELD_UID), "%s", parts[2]);
        k = k ?: fields_add(f, field_name(FIELD_BOOT_ID), "%s", parts[3]);
        k = k ?: fields_add(f, field_name(FIELD_PID), "%s", parts[4]);
        k = k ?: fields_add(f, field_name(FIELD_TIMESTAMP), "%s", parts[5]);
        return k;
}

static int entry_from_store_file(int dir_fd, const char *store_path, const char *name, const struct stat *st,
                                struct entry *ret) {
        struct entry d = { .source = ENTRY_SOURCE_STORE };
        int r;

        r = entry_read_xattrs(dir_fd, name, &d.fields);
        if (r == 0 || (r > 0 && !fields_get(&d.fields, FIELD_PID))) {
                /* No attributes (a file system without user xattrs): the name says the essentials. */
                fields_done(&d.fields);
                r = entry_parse_file_name(name, &d.fields);
        }
        if (r >= 0 && !fields_get(&d.fields, FIELD_ACTION))
                r = fields_add(&d.fields, field_name(FIELD_ACTION), "kernel");
        if (r >= 0)
                r = fields_add(&d.fields, field_name(FIELD_RESULT), "stored");
        if (r >= 0)
                r = fields_add(&d.fields, field_name(FIELD_FILENAME), "%s/%s", store_path, name);
        if (r < 0) {
                entry_done(&d);
                return r;
        }
        entry_parse_fields(&d, (uint64_t) st->st_mtim.tv_sec * 1000000 + (uint64_t) st->st_mtim.tv_nsec / 1000);
        *ret = d;
        return 0;
}

int entry_list_load_store(struct entry_list *l, const char *store_path) {
        _cleanup_closedir_ DIR *dir = opendir(store_path);
        struct dirent *de;
        size_t n_named;
        /* Only the journal's entries are looked up: store files are unique by name. */
        _cleanup_free_ struct keyed *named = keys_sorted(l, entry_file_name, &n_named);

        if (!dir)
                return negative_errno();
        if (!named)
                return -ENOMEM;

        while ((errno = 0, de = readdir(dir))) {
                struct stat st;
                struct entry d;

                if (strncmp(de->d_name, "core.", 5) != 0 || store_name_is_attachment(de->d_name, NULL))
                        continue; /* not a core, or a file kept with one */
                if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (bsearch(&(struct keyed) { .key = de->d_name }, named, n_named, sizeof *named,
                            keyed_compare_key))
                        continue;
                int r = entry_from_store_file(dirfd(dir), store_path, de->d_name, &st, &d);
                if (r == -EINVAL || r == -ENOENT)
                        continue; /* not one of ours, or vacuumed meanwhile */
                if (r < 0)
                        return r;
                r = entry_list_append(l, &d);
                if (r < 0)
                        return r;
        }
        return errno ? negative_errno() : 0;
}

static int entry_compare(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        if (x->time_usec != y->time_usec)
                return x->time_usec < y->time_usec ? -1 : 1;
        return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void entry_list_finish(struct entry_list *l, const char *store_path) {
        if (l->n > 1)
                qsort(l->entries, l->n, sizeof l->entries[0], entry_compare);
        for (size_t i = 0; i < l->n; i++)
                entry_update_presence(&l->entries[i], store_path);
}
