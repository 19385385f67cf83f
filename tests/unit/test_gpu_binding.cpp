// Which devices a rank's GPU groups take (run/gpu_binding.hpp): a pure rule, checked
// without a GPU; and the threads that drive the groups (run/group_threads.hpp).
#include <atomic>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "run/gpu_binding.hpp"
#include "run/group_threads.hpp"

using namespace arbolito;

TEST(GpuBinding, OneProcessTakesEveryVisibleDevice) {
    EXPECT_EQ(bind_gpus(4, 0, 1, {}).devices, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(bind_gpus(1, 0, 1, {}).devices, (std::vector<int>{0}));
}

TEST(GpuBinding, RanksOfANodeShareItsDevices) {
    // mpiexec -n 4 on 4 GPUs: a device each, local rank r on device r.
    for (int r = 0; r < 4; ++r) EXPECT_EQ(bind_gpus(4, r, 4, {}).devices, (std::vector<int>{r}));
    // 2 ranks on 4 GPUs: two each.
    EXPECT_EQ(bind_gpus(4, 0, 2, {}).devices, (std::vector<int>{0, 1}));
    EXPECT_EQ(bind_gpus(4, 1, 2, {}).devices, (std::vector<int>{2, 3}));
    // More ranks than devices: round-robin, local rank mod devices.
    for (int r = 0; r < 6; ++r) EXPECT_EQ(bind_gpus(2, r, 6, {}).devices, (std::vector<int>{r % 2}));
}

TEST(GpuBinding, RequestedGroupsAndFirstDevice) {
    EXPECT_EQ(bind_gpus(4, 0, 1, {2, -1}).devices, (std::vector<int>{0, 1}));
    EXPECT_EQ(bind_gpus(4, 0, 1, {2, 3}).devices, (std::vector<int>{3, 0}));
    EXPECT_EQ(bind_gpus(4, 2, 4, {1, 0}).devices, (std::vector<int>{0}));  // the given device, whatever the rank
    // More groups than devices: they share them (the tests' two groups on one GPU).
    const GpuBinding b = bind_gpus(1, 0, 1, {3, -1});
    EXPECT_EQ(b.devices, (std::vector<int>{0, 0, 0}));
    EXPECT_NE(b.why.find("share"), std::string::npos) << b.why;
    EXPECT_THROW(bind_gpus(2, 0, 1, {1, 2}), std::invalid_argument);  // device 2 of 0..1
    EXPECT_THROW(bind_gpus(0, 0, 1, {}), std::invalid_argument);
}

TEST(GroupThreads, TaskIRunsOnThreadIEveryTime) {
    GroupThreads t(3);
    ASSERT_EQ(t.size(), 3);
    std::vector<std::thread::id> first(3), again(3);
    t.run([&](int i) { first[i] = std::this_thread::get_id(); });
    for (int k = 0; k < 5; ++k) t.run([&](int i) { again[i] = std::this_thread::get_id(); });
    EXPECT_EQ(first, again);
    EXPECT_EQ(first[0], std::this_thread::get_id());  // the caller is thread 0
    EXPECT_NE(first[1], first[2]);
    EXPECT_NE(first[0], first[1]);
}

TEST(GroupThreads, EveryTaskRunsAndTheLowestFailureIsThrown) {
    GroupThreads t(4);
    std::atomic<int> ran{0};
    try {
        t.run([&](int i) {
            ++ran;
            if (i >= 2) throw std::runtime_error("task " + std::to_string(i));
        });
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "task 2");
    }
    EXPECT_EQ(ran.load(), 4);
    ran = 0;
    t.run([&](int) { ++ran; });  // usable again, no stale error
    EXPECT_EQ(ran.load(), 4);
}
