/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A recorded crash's core: where it is (presence), opened without following a link, and the compact
 * core its record carries. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "reader/entries.h"
#include "shared/cleanup.h"
#include "shared/fileio.h"

/* ---- the core file --------------------------------------------------------------------------- */

static const char *root_dir;

void entry_set_root(const char *root) {
        root_dir = root && *root && strcmp(root, "/") != 0 ? root : NULL;
}

char *entry_path_in_root(const char *path) {
        char *p;
        if (!root_dir)
                return strdup(path);
        return asprintf(&p, "%s%s", root_dir, path) < 0 ? NULL : p;
}

/* For a foreign entry, the one path it may name: a core.* file right in the store (systemd-coredump's
 * directory for its records). Returns its name there, or NULL. */
static const char *foreign_path_in(const char *path, const char *dir) {
        size_t n = dir ? strlen(dir) : 0;
        if (n == 0 || strncmp(path, dir, n) != 0 || path[n] != '/' || strchr(path + n + 1, '/') ||
            strncmp(path + n + 1, "core.", 5) != 0)
                return NULL;
        return path + n + 1;
}

static const char *foreign_dir(const struct entry *d, const char *store_path) {
        return d->systemd_coredump ? SYSTEMD_COREDUMP_DIR : store_path;
}

/* The directory a foreign entry's core is opened in (O_PATH: others may traverse the store, 0751,
 * not read it). systemd-coredump's must be root's and writable by root alone: its cores are files
 * of root's, which no one else can have put there. */
static int foreign_dir_open(const struct entry *d, const char *dir) {
        _cleanup_free_ char *in_root = entry_path_in_root(dir);
        struct stat st;
        if (!in_root)
                return -ENOMEM;
        int fd = open(in_root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (d->systemd_coredump && (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022))) {
                safe_close(fd);
                return -EPERM;
        }
        return fd;
}

/* A core a systemd-coredump record names is root's (it writes them as root, with an ACL for the
 * user). */
static bool owner_ok(const struct entry *d, const struct stat *st) {
        return !d->systemd_coredump || st->st_uid == 0;
}

static void entry_update_file_presence(struct entry *d, const char *store_path) {
        const char *path = fields_get(&d->fields, FIELD_FILENAME);
        _cleanup_close_ int dir_fd = -1;
        _cleanup_free_ char *opened = NULL;
        const char *name;
        struct stat st;

        d->disk_size = 0;
        if (!path || !*path) {
                d->presence = ENTRY_NONE;
                return;
        }
        if (d->remote) {
                d->presence = ENTRY_REMOTE;     /* the same path here is another file */
                return;
        }
        /* A record from journal files the user named may claim this machine's id: the path it names
         * is not even looked at (its existence and size are not the record's to learn) unless it
         * is one entry_open_core() would open. */
        if (d->foreign) {
                name = foreign_path_in(path, foreign_dir(d, store_path));
                dir_fd = name ? foreign_dir_open(d, foreign_dir(d, store_path)) : -EPERM;
                if (dir_fd < 0) {
                        d->presence = dir_fd == -EACCES ? ENTRY_INACCESSIBLE : ENTRY_MISSING;
                        return;
                }
        } else {
                opened = d->source == ENTRY_SOURCE_JOURNAL ? entry_path_in_root(path) : strdup(path);
                if (!opened) {
                        d->presence = ENTRY_MISSING;
                        return;
                }
                name = opened;
        }
        if (fstatat(dir_fd >= 0 ? dir_fd : AT_FDCWD, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                d->presence = errno == EACCES ? ENTRY_INACCESSIBLE : ENTRY_MISSING;
                return;
        }
        if (!S_ISREG(st.st_mode) || !owner_ok(d, &st)) {
                d->presence = ENTRY_MISSING;
                return;
        }
        d->disk_size = (uint64_t) st.st_blocks * 512;
        d->presence = faccessat(dir_fd >= 0 ? dir_fd : AT_FDCWD, name, R_OK, 0) == 0 ? ENTRY_PRESENT : ENTRY_INACCESSIBLE;
}

/* Where the file is not here to be read, the record's compact core is. Not where we may not read
 * the file: that stays a matter of permission. */
static void entry_update_presence_journal(struct entry *d) {
        if (d->journal_core && d->cursor &&
            (d->presence == ENTRY_NONE || d->presence == ENTRY_MISSING || d->presence == ENTRY_REMOTE))
                d->presence = ENTRY_JOURNAL;
}

void entry_update_presence(struct entry *d, const char *store_path) {
        entry_update_file_presence(d, store_path);
        entry_update_presence_journal(d);
}

const char *entry_presence_to_string(enum entry_presence p) {
        switch (p) {
        case ENTRY_NONE:         return "none";
        case ENTRY_PRESENT:      return "present";
        case ENTRY_MISSING:      return "missing";
        case ENTRY_INACCESSIBLE: return "inaccessible";
        case ENTRY_REMOTE:       return "remote";
        case ENTRY_JOURNAL:      return "journal";
        }
        return "?";
}

const char *entry_source_to_string(enum entry_source s) {
        return s == ENTRY_SOURCE_JOURNAL ? "journal" : "store";
}

int entry_open_core(const struct entry *d, const char *store_path, int *ret_fd) {
        const char *path = fields_get(&d->fields, FIELD_FILENAME);
        _cleanup_close_ int dir_fd = -1;
        _cleanup_free_ char *opened = NULL;
        const char *name;
        struct stat st;
        int fd;

        if (!path || !*path)
                return -ENODATA;
        if (d->remote)
                return -EREMOTE;
        if (d->foreign) {
                name = foreign_path_in(path, foreign_dir(d, store_path));
                if (!name)
                        return -EPERM;
                dir_fd = foreign_dir_open(d, foreign_dir(d, store_path));
                if (dir_fd < 0)
                        return dir_fd;
        } else {
                opened = d->source == ENTRY_SOURCE_JOURNAL ? entry_path_in_root(path) : strdup(path);
                if (!opened)
                        return -ENOMEM;
                name = opened;
        }
        fd = openat(dir_fd >= 0 ? dir_fd : AT_FDCWD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return errno == ELOOP ? -EBADF : negative_errno();
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                safe_close(fd);
                return -EBADF;
        }
        if (!owner_ok(d, &st)) {
                safe_close(fd);
                return -EPERM;
        }
        *ret_fd = fd;
        return 0;
}

/* ---- the compact core in the record ---------------------------------------------------------- */

int entry_write_journal_core(sd_journal *j, const struct entry *d, int out_fd, uint64_t *ret_size) {
        const char *name = field_name(FIELD_COREDUMP);
        size_t prefix = strlen(name) + 1;
        const void *data;
        size_t size;

        if (!d->journal_core || !d->cursor)
                return -ENODATA;
        int r = sd_journal_seek_cursor(j, d->cursor);
        if (r < 0)
                return r;
        r = sd_journal_next(j);
        if (r < 0)
                return r;
        if (r == 0 || sd_journal_test_cursor(j, d->cursor) <= 0)
                return -ESTALE;
        /* All of it, but no more than a compact core can be: a larger field is no core of ours and is
         * not inflated in memory (a journal from --directory may be anybody's). The threshold is a
         * hint to the library, so the size is checked too. */
        r = sd_journal_set_data_threshold(j, (size_t) (JOURNAL_SIZE_MAX_LIMIT + prefix + 1));
        if (r < 0)
                return r;
        r = sd_journal_get_data(j, name, &data, &size);
        if (r == -ENOENT)
                return -ENODATA;
        if (r < 0)
                return r;
        if (size < prefix || memcmp(data, name, prefix - 1) != 0 || ((const char *) data)[prefix - 1] != '=')
                return -EBADMSG;
        size -= prefix;
        if (size > JOURNAL_SIZE_MAX_LIMIT)
                return -EFBIG;
        const unsigned char *core = (const unsigned char *) data + prefix;
        /* An ELF core, as the parser made it (the daemon checked its header before sending it). */
        if (size < sizeof(Elf64_Ehdr) || memcmp(core, ELFMAG, SELFMAG) != 0 || core[EI_CLASS] != ELFCLASS64)
                return -EBADMSG;
        Elf64_Ehdr eh;
        memcpy(&eh, core, sizeof eh);
        if (eh.e_type != ET_CORE)
                return -EBADMSG;
        r = write_full(out_fd, core, size);
        if (r < 0)
                return r;
        if (ret_size)
                *ret_size = size;
        return 0;
}
