/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crash/cgroup-names.h"
#include "shared/cleanup.h"

struct cgroup_names_entry {
        uint64_t id;            /* 0: free */
        uint64_t used;          /* the tick of its last use */
        struct tenant owner;    /* whose crash made it */
        struct cgroup_name name;
};

struct cgroup_names {
        pthread_mutex_t lock;
        uint64_t tick, hits, misses;
        struct cgroup_names_entry e[CGROUP_NAMES_MAX];
};

struct cgroup_names *cgroup_names_new(void) {
        struct cgroup_names *t = calloc(1, sizeof *t);
        if (t)
                pthread_mutex_init(&t->lock, NULL);
        return t;
}

void cgroup_name_done(struct cgroup_name *n) {
        free(n->path);
        *n = (struct cgroup_name) { .delegated_to = -1 };
}

struct cgroup_names *cgroup_names_free(struct cgroup_names *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < CGROUP_NAMES_MAX; i++)
                cgroup_name_done(&t->e[i].name);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return NULL;
}

int cgroup_id_of_path(int root_fd, const char *path, uint64_t *ret) {
        /* cgroup2's file handles are the kernfs node id, which is the cgroup id. */
        union {
                struct file_handle fh;
                char space[sizeof(struct file_handle) + 64];
        } h = { .fh.handle_bytes = 64 };
        int mount_id;

        if (root_fd < 0 || !path || path[0] != '/')
                return -EINVAL;
        path += strspn(path, "/");
        if (name_to_handle_at(root_fd, *path ? path : "", &h.fh, &mount_id, *path ? 0 : AT_EMPTY_PATH) < 0)
                return -errno;
        if (h.fh.handle_bytes != sizeof(uint64_t))
                return -EOPNOTSUPP;
        memcpy(ret, h.fh.f_handle, sizeof *ret);
        return 0;
}

static int cgroup_name_copy(const struct cgroup_name *from, struct cgroup_name *to) {
        char *path = strdup(from->path);
        if (!path)
                return -ENOMEM;
        *to = (struct cgroup_name) { .path = path, .trusted_len = from->trusted_len,
                                     .delegated_to = from->delegated_to };
        return 0;
}

int cgroup_names_get(struct cgroup_names *t, uint64_t id, struct cgroup_name *ret) {
        int r = 0;

        if (!t || id == 0)
                return 0;
        pthread_mutex_lock(&t->lock);
        for (size_t i = 0; i < CGROUP_NAMES_MAX; i++)
                if (t->e[i].id == id) {
                        t->e[i].used = ++t->tick;
                        r = cgroup_name_copy(&t->e[i].name, ret) < 0 ? -ENOMEM : 1;
                        break;
                }
        if (r > 0)
                t->hits++;
        else
                t->misses++;
        pthread_mutex_unlock(&t->lock);
        return r;
}

/* Where a new entry of owner's goes: the entry of id (its path changed); else, once owner holds
 * their share, their own least recently used; else a free one; else the least recently used. */
static size_t cgroup_names_slot(const struct cgroup_names *t, uint64_t id, const struct tenant *owner) {
        size_t own = 0, own_oldest = SIZE_MAX, free_slot = SIZE_MAX, oldest = 0;

        for (size_t i = 0; i < CGROUP_NAMES_MAX; i++) {
                const struct cgroup_names_entry *e = &t->e[i];
                if (e->id == id)
                        return i;
                if (e->id == 0) {
                        if (free_slot == SIZE_MAX)
                                free_slot = i;
                        continue;
                }
                if (tenant_equal(&e->owner, owner)) {
                        own++;
                        if (own_oldest == SIZE_MAX || e->used < t->e[own_oldest].used)
                                own_oldest = i;
                }
                if (t->e[oldest].id == 0 || e->used < t->e[oldest].used)
                        oldest = i;
        }
        if (own >= CGROUP_NAMES_PER_OWNER)
                return own_oldest;
        return free_slot != SIZE_MAX ? free_slot : oldest;
}

int cgroup_names_put(struct cgroup_names *t, uint64_t id, const struct tenant *owner, const struct cgroup_name *name) {
        struct cgroup_name copy;

        if (!t || id == 0 || !name->path)
                return 0;
        if (cgroup_name_copy(name, &copy) < 0)
                return -ENOMEM;
        pthread_mutex_lock(&t->lock);
        size_t slot = cgroup_names_slot(t, id, owner);
        cgroup_name_done(&t->e[slot].name);
        t->e[slot] = (struct cgroup_names_entry) { .id = id, .used = ++t->tick, .owner = *owner, .name = copy };
        pthread_mutex_unlock(&t->lock);
        return 0;
}

void cgroup_names_stats(struct cgroup_names *t, uint64_t *ret_hits, uint64_t *ret_misses) {
        pthread_mutex_lock(&t->lock);
        *ret_hits = t->hits;
        *ret_misses = t->misses;
        pthread_mutex_unlock(&t->lock);
}
