#define _GNU_SOURCE
#include "spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t mirror_spawn_piped(const char *path, char *const argv[], char *const envp[], int commandFd, int eventFd, int logFd) {
    pid_t parent = getpid();
    pid_t child = fork();
    if (child != 0) return child;
    // In the child: async-signal-safe calls only, until exec.
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    // Move the pipe ends above 4 first, so that placing one cannot overwrite the other.
    int command = fcntl(commandFd, F_DUPFD, 10);
    int event = fcntl(eventFd, F_DUPFD, 10);
    int log = fcntl(logFd, F_DUPFD, 10);
    int null = open("/dev/null", O_RDONLY);
    if (command < 0 || event < 0 || log < 0 || null < 0) _exit(127);
    if (dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0 || dup2(command, 3) < 0 || dup2(event, 4) < 0) _exit(127);
    // Everything else the parent had open stays with the parent.
    if (syscall(SYS_close_range, 5, ~0U, 0) != 0) {
        for (int fd = 5; fd < 65536; fd++) close(fd);
    }
    execve(path, argv, envp);
    _exit(127);
}

int mirror_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
