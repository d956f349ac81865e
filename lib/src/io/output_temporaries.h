// The temporaries OutputFile is writing, seen from a signal handler: the
// process that installs the handlers (app/main.cpp) removes them, so that an
// interrupted run leaves no partial file behind. Private to the library and
// the tool; implemented in output_file.cpp, which keeps the table.
#pragma once

#include <cstddef>

namespace embedpe {

// Removes every temporary being written. Async-signal-safe: for the handlers
// of SIGINT, SIGTERM, SIGHUP and SIGBUS (see app/main.cpp).
void remove_temporaries() noexcept;

// A line the handlers of SIGINT, SIGTERM and SIGHUP say before the process
// dies (an interrupted run that can be resumed says how); nullptr for none.
// The text must outlive the setting.
void set_interrupt_note(const char* note) noexcept;

// How many temporaries exist right now (for tests).
std::size_t temporaries_in_progress() noexcept;

}  // namespace embedpe
