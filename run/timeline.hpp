#pragma once
// The run's timeline (`arbolito run --timeline FILE`): marks made by the engine's threads
// (the update's and the exchange's), each with the microseconds since the timeline
// started and the step it concerns, to see where a run's time goes outside its kernels.
// The GPU machine has no Nsight Systems; this found 4 % of a resident run in buffer growth
// and cut epochs (bench/HISTORY.md, "a timeline of the resident run"). Off unless
// started: a mark is then one relaxed atomic load.
#include <iosfwd>
#include <vector>

namespace arbolito::timeline {

struct Mark {
    int thread;        // 0 for the first thread that marked, then in order of first mark
    double us;         // since start()
    const char* what;  // a string literal
    long step;         // the step it concerns (-1: none)
};

void start();  // forgets earlier marks; marks from now on
void stop();
void mark(const char* what, long step = -1);
std::vector<Mark> marks();  // in the order they were recorded

// CSV: thread,us,mark,step, one line per mark.
void write_csv(std::ostream& out, const std::vector<Mark>& marks);

}  // namespace arbolito::timeline
