#define _GNU_SOURCE
#include "spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/// Ends a child whose set-up failed, telling the parent why on `reportFd` when there is one.
static void fail(int reportFd) {
    int code = errno;
    if (reportFd >= 0) (void)!write(reportFd, &code, sizeof code);
    _exit(127);
}

/// In a child just forked from `parent`: asks for `deathSignal` when the forking thread ends,
/// restores default signal handling, places `fds[i]` at descriptor i, closes every other one
/// (`reportFd` is kept until the exec closes it) and executes `path`. A failure's errno goes to
/// `reportFd` (-1: none). Async-signal-safe calls only; never returns.
static void exec_child(pid_t parent, const char *path, char *const argv[], char *const envp[], const int fds[], int count,
                       int deathSignal, int reportFd) {
    if (prctl(PR_SET_PDEATHSIG, deathSignal) != 0) fail(reportFd);
    if (getppid() != parent) _exit(127);
    struct sigaction standard = { .sa_handler = SIG_DFL };
    for (int number = 1; number < NSIG; number++) sigaction(number, &standard, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    // Move every descriptor above the ones to be placed first, so that placing one cannot
    // overwrite another.
    int moved[8];
    if (count > 8) _exit(127);
    int report = reportFd >= 0 ? fcntl(reportFd, F_DUPFD_CLOEXEC, 16) : -1;
    if (reportFd >= 0 && report < 0) _exit(127);
    for (int i = 0; i < count; i++) {
        moved[i] = fcntl(fds[i], F_DUPFD, 16);
        if (moved[i] < 0) fail(report);
    }
    for (int i = 0; i < count; i++) {
        if (dup2(moved[i], i) < 0) fail(report);
    }
    // The report's descriptor goes right after the placed ones, to be closed by the exec.
    int from = count;
    if (report >= 0) {
        if (dup2(report, count) < 0 || fcntl(count, F_SETFD, FD_CLOEXEC) < 0) fail(report);
        report = count;
        from = count + 1;
    }
    if (syscall(SYS_close_range, from, ~0U, 0) != 0) {
        for (int fd = from; fd < 65536; fd++) close(fd);
    }
    execve(path, argv, envp);
    fail(report);
}

pid_t mirror_spawn_piped(const char *path, char *const argv[], char *const envp[], int commandFd, int eventFd, int logFd) {
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) return -1;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        const int fds[] = { null, logFd, logFd, commandFd, eventFd };
        exec_child(parent, path, argv, envp, fds, 5, SIGKILL, -1);
    }
    int saved = errno;
    close(null);
    errno = saved;
    return child;
}

pid_t mirror_spawn(const char *path, char *const argv[], char *const envp[], int inFd, int outFd, int errFd,
                   uid_t user, gid_t group, int deathSignal) {
    // The exec closes the report pipe's write end: an end of file says the program started.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        close(report[0]);
        if (group != (gid_t)-1 && (setgroups(0, NULL) != 0 || setgid(group) != 0)) fail(report[1]);
        if (user != (uid_t)-1 && setuid(user) != 0) fail(report[1]);
        const int fds[] = { inFd, outFd, errFd };
        exec_child(parent, path, argv, envp, fds, 3, deathSignal, report[1]);
    }
    int saved = errno;
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        errno = saved;
        return -1;
    }
    int code = 0;
    ssize_t got;
    do { got = read(report[0], &code, sizeof code); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof code) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        errno = code;
        return -1;
    }
    return child;
}

int mirror_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
