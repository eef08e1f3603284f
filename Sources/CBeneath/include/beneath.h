#ifndef MIRROR_BENEATH_H
#define MIRROR_BENEATH_H

/// Opens `path` relative to the directory `directory` in one system call, refusing any path that
/// would leave it (`..` above it, an absolute path) or pass through a symbolic link (Linux
/// openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS). Returns the
/// descriptor, or -1 with errno set; ENOSYS where the kernel (or a seccomp filter) lacks openat2.
int mirror_open_beneath(int directory, const char *path, int flags);

#endif
