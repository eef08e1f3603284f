#ifndef MIRROR_SPAWN_H
#define MIRROR_SPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` as the leader of a new process group, its standard
/// input /dev/null, its standard output and error `logFd`, and the two pipe ends `commandFd`
/// and `eventFd` as its descriptors 3 and 4 (Chromium's `--remote-debugging-pipe`); every other
/// descriptor is closed. The child gets SIGKILL when the thread that called this ends
/// (PR_SET_PDEATHSIG), so a caller killed with SIGKILL leaves no child behind: call it from a
/// thread that lives as long as the child. Returns the child's pid, or -1 with errno set.
pid_t mirror_spawn_piped(const char *path, char *const argv[], char *const envp[], int commandFd, int eventFd, int logFd);

/// Starts `path` with `argv` and `envp`, its standard input, output and error `inFd`, `outFd`
/// and `errFd`, every other descriptor closed and signals handled by default; as `user` and
/// `group` unless they are -1 (a process running as root starting a server that refuses root).
/// The child gets `deathSignal` when the thread that called this ends (PR_SET_PDEATHSIG, set
/// after the user changes, which clears it): call it from a thread that lives as long as the
/// child. Returns the child's pid, or -1 with errno set.
pid_t mirror_spawn(const char *path, char *const argv[], char *const envp[], int inFd, int outFd, int errFd,
                   uid_t user, gid_t group, int deathSignal);

/// pipe2(fds, O_CLOEXEC): a pipe that no other child started meanwhile inherits.
int mirror_pipe_cloexec(int fds[2]);

#endif
