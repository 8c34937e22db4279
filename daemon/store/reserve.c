/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#include "store/reserve.h"
#include "shared/cleanup.h"

uint64_t store_reserve(struct store *s, const struct tenant *owner, uint64_t want, char *why, size_t why_size) {
        struct statvfs sv;
        uint64_t granted;

        if (fstatvfs(s->dir_fd, &sv) < 0) {
                snprintf(why, why_size, "cannot tell the free space of %s: %s", s->path, strerror(errno));
                return 0;
        }
        uint64_t fs_size = (uint64_t) sv.f_blocks * sv.f_frsize;
        uint64_t free_space = (uint64_t) sv.f_bavail * sv.f_frsize;
        struct store_limits l = store_get_limits(s);
        uint64_t keep_free = store_limit(l.keep_free, fs_size, STORE_KEEP_FREE_PERCENT);
        uint64_t user_room = UINT64_MAX;
        if (l.max_use_per_user != SIZE_AUTO) {
                uint64_t used = store_usage_of(s, owner);
                user_room = l.max_use_per_user > used ? l.max_use_per_user - used : 0;
        }

        pthread_mutex_lock(&s->reserve_lock);
        uint64_t held = s->reserved;
        uint64_t room = free_space > keep_free + held ? free_space - keep_free - held : 0;
        granted = MIN(want, MIN(room, user_room));
        s->reserved += granted;
        pthread_mutex_unlock(&s->reserve_lock);

        char t[TENANT_TEXT_MAX];
        if (granted == 0 && user_room == 0)
                snprintf(why, why_size, "tenant %s uses its MaxUsePerUser= already", tenant_format(owner, t));
        else if (granted == 0)
                snprintf(why, why_size,
                         "no room in the store: %" PRIu64 " bytes free, KeepFree= %" PRIu64 ", %" PRIu64
                         " reserved by crashes in flight",
                         free_space, keep_free, held);
        return granted;
}

void store_unreserve(struct store *s, uint64_t granted) {
        pthread_mutex_lock(&s->reserve_lock);
        s->reserved -= MIN(granted, s->reserved);
        pthread_mutex_unlock(&s->reserve_lock);
}
