/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The cgroups crashes came from, by cgroup id (PIDFD_INFO_CGROUPID): a crash from a cgroup seen
 * before is named without reading its /proc/<pid>/cgroup or walking the cgroup tree for the
 * delegation boundary again. A crash loop of one service, a rejected one above all, then reads
 * no /proc file for its unit, slice and container.
 *
 * A cgroup id is never reused in a boot, and cgroup2 refuses to rename a directory (EPERM), so
 * the path of an id that a live task's pidfd names is the one kept for it: a hit needs no system
 * call at all. What is checked is the entry itself: it is made only from a path that was seen, on
 * the miss, to lead to the pidfd's id (a task that moved between the two is not kept). The
 * delegation boundary is kept as it was then: systemd chowns a delegated cgroup as it creates it,
 * before anything runs in it. The daemon shares one table between its crashes (a mutex); it holds
 * at most CGROUP_NAMES_MAX entries, at most CGROUP_NAMES_PER_OWNER made by one owner's crashes
 * (the crash's tenant, shared/tenant.h: a user, or a container): an owner at their share replaces
 * their own least recently used entry, so that no one crashing in many cgroups pushes out the
 * names of others; otherwise a free entry, else the least recently used of all.
 */

#include <stddef.h>
#include <stdint.h>

#include "shared/tenant.h"

#define CGROUP_NAMES_MAX 256
#define CGROUP_NAMES_PER_OWNER 64

struct cgroup_names;

/* What is kept per cgroup: its path, and the delegation boundary as container_info_name() takes it. */
struct cgroup_name {
        char *path;
        size_t trusted_len;     /* the part of path above any delegated directory */
        int64_t delegated_to;   /* that directory's owner; -1: none */
};

struct cgroup_names *cgroup_names_new(void);
struct cgroup_names *cgroup_names_free(struct cgroup_names *t);

/* The id of the cgroup at path (as /proc/<pid>/cgroup gives it: absolute, under the cgroup2 root
 * root_fd). 0, or a negative errno. */
int cgroup_id_of_path(int root_fd, const char *path, uint64_t *ret);

/* id's entry: 1 and *ret (a copy, to cgroup_name_done()); 0 if none; -ENOMEM. t may be NULL (no
 * table: always 0). */
int cgroup_names_get(struct cgroup_names *t, uint64_t id, struct cgroup_name *ret);
/* Keeps a copy of name as id's, made for a crash of owner's, once the caller has checked that
 * name->path is id's. 0 or -ENOMEM. */
int cgroup_names_put(struct cgroup_names *t, uint64_t id, const struct tenant *owner, const struct cgroup_name *name);
void cgroup_name_done(struct cgroup_name *n);

/* Lookups that found an entry, and those that did not (for tests). */
void cgroup_names_stats(struct cgroup_names *t, uint64_t *ret_hits, uint64_t *ret_misses);
