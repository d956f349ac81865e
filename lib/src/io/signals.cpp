// The signal handlers of install_signal_cleanup (embedpe/output_file.h).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "embedpe/output_file.h"
#include "embedpe/mapped_file.h"
#include "output_temporaries.h"

namespace embedpe {
namespace {

std::atomic<const char*> interrupt_note{nullptr};

void say(const char* text);

// SIGINT, SIGTERM, SIGHUP: remove a half-written output, say the note if
// there is one, then die of the signal, as the shell expects.
void on_termination(int sig) {
  remove_temporaries();
  if (const char* note = interrupt_note.load()) say(note);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void say(const char* text) {
  for (std::size_t n = std::strlen(text); n > 0;) {
    const ssize_t w = ::write(STDERR_FILENO, text, n);
    if (w <= 0) return;
    text += w;
    n -= static_cast<std::size_t>(w);
  }
}

// SIGBUS: a memory-mapped weights file was truncated (or replaced in place)
// while it was read. One line, no temporary left, exit 1.
void on_bus_error(int, siginfo_t* info, void*) {
  remove_temporaries();
  if (const char* path = mapped_file_at(info->si_addr)) {
    say("embedpe: weights file ");
    say(path);
    say(" changed while being read (truncated or rewritten in place); run again once it is complete\n");
  } else {
    say("embedpe: bus error: a memory-mapped input changed while being read\n");
  }
  ::_exit(1);
}

}  // namespace

void set_interrupt_note(const char* note) noexcept { interrupt_note.store(note); }

void install_signal_cleanup() {
  struct sigaction term {};
  term.sa_handler = on_termination;
  sigemptyset(&term.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    sigaddset(&term.sa_mask, sig);
  }
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &term, nullptr);
  struct sigaction bus {};
  bus.sa_sigaction = on_bus_error;
  bus.sa_flags = SA_SIGINFO;
  sigfillset(&bus.sa_mask);
  ::sigaction(SIGBUS, &bus, nullptr);
  // A closed pipe is seen as EPIPE: writing throws BrokenPipe, and nothing
  // more is written.
  ::signal(SIGPIPE, SIG_IGN);
  // Past the file-size limit (ulimit -f) write() fails with EFBIG, which
  // becomes a "file too large" error that removes the temporary.
  ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace embedpe
