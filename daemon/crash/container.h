/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Where a crashed process lives, as seen from the host: its pid, uid and gid inside its own
 * namespaces, its pid, mount and user namespaces (and which of them are not the host's: those of
 * PID 1 of coredumpd's pid namespace, or where that cannot be read, coredumpd's own; coredumpd's
 * own mount namespace is a private one under systemd), and the
 * container it belongs to, named after its cgroup path (systemd-nspawn and machined machines,
 * podman, docker, containerd, CRI-O, LXC).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum namespace_kind {
        NAMESPACE_PID,
        NAMESPACE_MNT,
        NAMESPACE_USER,
        _NAMESPACE_MAX,
};

struct container_info {
        pid_t ns_pid;                   /* the pid inside its pid namespace (last of NSpid:); 0: unknown */
        uint64_t vm_size;               /* its address space in bytes (VmSize:, the same status read):
                                         * no core of it is larger (but for the notes); 0: unknown */
        int64_t ns_uid, ns_gid;         /* the real uid and gid inside its user namespace; -1: unknown */
        uint64_t ns[_NAMESPACE_MAX];    /* namespace ids (inode numbers of /proc/<pid>/ns/...); 0: unknown */
        uint64_t host_ns[_NAMESPACE_MAX];/* the host's: PID 1's, else coredumpd's own */
        char *kind;                     /* "nspawn", "machine", "podman", "docker", ...; NULL: none */
        char *name;                     /* the machine name or container id; NULL: none */
        int64_t delegated_to;           /* the uid its cgroup was delegated to (the names below that
                                         * directory are theirs: no container is named from them);
                                         * -1: none, or not known */
        char *manager_cmdline;          /* of the nearest ancestor in the host's pid namespace (the
                                         * container's manager: systemd-nspawn, a shim), escaped;
                                         * NULL: not in a pid namespace of its own, or unknown */
};

/* The host's namespaces, read once: PID 1's of coredumpd's pid namespace (else coredumpd's own),
 * and coredumpd's own user namespace (whose id maps need no translation). 0: unknown. */
struct host_namespaces {
        uint64_t ns[_NAMESPACE_MAX];
        uint64_t own_user_ns;
};
void host_namespaces_read(int proc_root_fd, struct host_namespaces *ret);

/* "pid", "mnt", "user". */
const char *namespace_kind_to_string(enum namespace_kind k);

/* Whether the process's namespace k is known and not the host's. */
bool container_ns_differs(const struct container_info *ci, enum namespace_kind k);
/* In a container: one is named by the cgroup path, or the process has a pid namespace of its own.
 * (A mount or user namespace alone, as a sandboxed service has, is not a container.) */
bool container_info_in_container(const struct container_info *ci);

/* ci->name and ci->kind (owned, container_info_done() frees them) from the cgroup path (may be
 * NULL), from its part above the delegation boundary only (cgroup_delegation_boundary(), through
 * cgroup_root_fd, the host's cgroup2 root; -1: unknown, no name is taken); ci->delegated_to. */
void container_info_name(const char *cgroup, int cgroup_root_fd, const char *tag, struct container_info *ci);
/* The same with the delegation boundary known already (crash/cgroup-names.h keeps it per cgroup). */
void container_info_name_known(const char *cgroup, size_t trusted_len, int64_t delegated_to, const char *tag,
                               struct container_info *ci);
/* How much of the cgroup path was named by root: up to the end of its first directory owned by
 * another uid (*ret_owner; systemd chowns a cgroup it delegates to a user, as user@UID.service,
 * or to a container's root): the names below it are the delegatee's own choice, a user's claim
 * rather than the host's word. The whole path's length, *ret_owner -1, when no directory on it is
 * delegated; the part verified so far when a directory cannot be looked at. */
size_t cgroup_delegation_boundary(int cgroup_root_fd, const char *path, int64_t *ret_owner);
/* The namespaces of ci and the ids inside them, from the verified /proc/<pid> directory proc_fd,
 * the host's namespaces, and the process's uid and gid as the kernel gave them. What cannot be read
 * stays unknown (logged at debug level with tag). Reads no process's memory. */
void container_info_gather(int proc_fd, const struct host_namespaces *host, uid_t uid, gid_t gid, const char *tag,
                           struct container_info *ci);
/* ci->manager_cmdline, for a process in a pid namespace not the host's: the command line of its
 * nearest ancestor in the host's pid namespace, found through the /proc root proc_root_fd (its
 * status files). That is another process's memory (which its owner can make block): read by
 * read_cmdline (the crash's reader, crash/context.c) from that process's /proc directory dir_fd:
 * 0 and the raw text (malloc'ed), or -errno. */
typedef int (*cmdline_reader_t)(void *userdata, int dir_fd, char **ret, size_t *ret_size);
void container_info_gather_manager(int proc_root_fd, pid_t pid, cmdline_reader_t read_cmdline, void *userdata,
                                   struct container_info *ci);
void container_info_done(struct container_info *ci);

/* Pure parsers (exposed for tests and fuzzing). */

/* A cgroup v2 path → the container's kind and name (malloc'ed), from the components that end within
 * its first trusted_len bytes (SIZE_MAX: all). The outermost container wins (a docker container
 * inside an nspawn machine is the machine's). 0: found; -ENOENT: not in a container (*ret_kind,
 * *ret_name NULL); -ENOMEM. */
int cgroup_path_to_container(const char *path, size_t trusted_len, char **ret_kind, char **ret_name);
/* The pid of the "PPid:" line of /proc/<pid>/status (0 for none). */
int parse_status_ppid(const char *status, pid_t *ret);
/* The last pid of the "NSpid:" line of /proc/<pid>/status: the pid in the innermost namespace. */
int parse_status_nspid(const char *status, pid_t *ret);
/* The "VmSize:" line of /proc/<pid>/status, in bytes. */
int parse_status_vm_size(const char *status, uint64_t *ret);
/* An id as coredumpd sees it (outside) → the id inside, through /proc/<pid>/uid_map or gid_map
 * text ("inside outside count" lines, outside in the reader's namespace when the process is in
 * another user namespace than the reader). -ENOENT: unmapped. */
int id_map_to_inside(const char *map, uint32_t outside, uint32_t *ret_inside);
