/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <acl/libacl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "shared/fields.h"
#include "shared/parse.h"
#include "store/store.h"

static int fail(int err, char *why, size_t why_size, const char *format, ...) __attribute__((format(printf, 4, 5)));
static int fail(int err, char *why, size_t why_size, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(why, why_size, format, ap);
        va_end(ap);
        return err;
}

bool store_name_is_core(const char *name) {
        return name && strncmp(name, "core.", 5) == 0 && strlen(name) < 256 && !strchr(name, '/') &&
               !store_name_is_attachment(name, NULL);
}

/* Whether the file's ACL gives uid an entry of its own with read permission (store.c grants a
 * dumpable crash's user one). */
static bool acl_grants_read(int fd, uid_t uid) {
        acl_t acl = acl_get_fd(fd);
        acl_entry_t entry;
        bool found = false;

        if (!acl)
                return false;
        for (int k = acl_get_entry(acl, ACL_FIRST_ENTRY, &entry); k == 1 && !found;
             k = acl_get_entry(acl, ACL_NEXT_ENTRY, &entry)) {
                acl_tag_t tag;
                acl_permset_t permset;
                if (acl_get_tag_type(entry, &tag) < 0 || tag != ACL_USER)
                        continue;
                uid_t *q = acl_get_qualifier(entry);
                if (!q)
                        continue;
                found = *q == uid && acl_get_permset(entry, &permset) >= 0 && acl_get_perm(permset, ACL_READ) == 1;
                acl_free(q);
        }
        acl_free(acl);
        return found;
}

int store_remove_core(int dir_fd, const char *name, uid_t requester, unsigned *ret_removed, char *why, size_t why_size) {
        struct stat st, again;
        char v[32];

        *ret_removed = 0;
        if (!store_name_is_core(name))
                return fail(-EINVAL, why, why_size, "not the name of a core in the store");
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return fail(-errno, why, why_size, "%s", errno == ELOOP ? "a symlink, not a core" : strerror(errno));
        if (fstat(fd, &st) < 0)
                return fail(-errno, why, why_size, "%s", strerror(errno));
        if (!S_ISREG(st.st_mode))
                return fail(-EBADF, why, why_size, "not a regular file");
        if (requester != 0) {
                /* The record's uid, as kept on the core, and the file itself: the user's own
                 * (owner), or granted to the user to read (the ACL of a dumpable crash's core). */
                uint32_t uid = UINT32_MAX;
                ssize_t n = fgetxattr(fd, field_table[FIELD_UID].xattr, v, sizeof v - 1);
                if (n > 0) {
                        v[n] = 0;
                        if (parse_uint32(v, &uid) < 0)
                                uid = UINT32_MAX;
                } else if (errno == ENODATA || errno == ENOTSUP)
                        uid = store_name_uid(name); /* no attributes here (tmpfs before 6.6): the name's */
                if (uid == UINT32_MAX)
                        return fail(-EPERM, why, why_size, "the core does not say whose crash it is");
                if (uid != (uint32_t) requester)
                        return fail(-EPERM, why, why_size, "the crash is another user's");
                if (st.st_uid != requester && !acl_grants_read(fd, requester))
                        return fail(-EPERM, why, why_size, "the core is not yours to read (a setuid or root-only dump)");
        }
        /* The very file that was checked: nobody but root writes the store, but a name is looked up
         * twice here. */
        if (fstatat(dir_fd, name, &again, AT_SYMLINK_NOFOLLOW) < 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev)
                return fail(-ESTALE, why, why_size, "the core changed while it was checked");
        if (unlinkat(dir_fd, name, 0) < 0)
                return fail(-errno, why, why_size, "%s", strerror(errno));
        (*ret_removed)++;
        for (unsigned k = 0;; k++) {
                _cleanup_free_ char *a = store_attachment_name(name, k);
                if (!a || unlinkat(dir_fd, a, 0) < 0)
                        break;
                (*ret_removed)++;
        }
        return 0;
}
