#pragma once
// A parallel loop for set-up work (discretisation, layouts): OpenMP threads, dynamic
// chunks. An exception must not leave an OpenMP region (it would terminate the
// program), so the first one thrown is caught and rethrown after the loop. Inside a
// parallel region (cell groups built side by side) the loop runs on its caller's thread.
#include <exception>

#include <omp.h>

namespace arbolito {

template <class F>
void parallel_for(long n, long chunk, F&& f) {
    std::exception_ptr error;
#pragma omp parallel for schedule(dynamic, chunk) if (!omp_in_parallel())
    for (long i = 0; i < n; ++i) {
        try {
            f(i);
        } catch (...) {
#pragma omp critical(arbolito_parallel_for_error)
            if (!error) error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace arbolito
