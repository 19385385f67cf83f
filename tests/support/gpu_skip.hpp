#pragma once
// GPU tests skip, with a message, on a machine without a usable CUDA device (CI).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#define SKIP_WITHOUT_GPU()                                                         \
    do {                                                                           \
        int n_dev = 0;                                                             \
        if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {             \
            cudaGetLastError(); /* clear the sticky error of the failed probe */   \
            GTEST_SKIP() << "no CUDA device";                                      \
        }                                                                          \
    } while (0)
