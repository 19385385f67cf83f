#pragma once
// A compile-time list of mechanism types: their number, the position of each, and a
// loop over them in list order (the order in which their currents are added).
#include <tuple>
#include <type_traits>

namespace arbolito {

template <class M>
struct MechTag {
    using type = M;
};

template <class... Ms>
struct mech_list {
    static constexpr int size = sizeof...(Ms);

    template <class M>
    static constexpr int index_of() {
        constexpr bool is[] = {std::is_same_v<M, Ms>...};
        for (int i = 0; i < size; ++i)
            if (is[i]) return i;
        return -1;
    }

    // f(MechTag<M>{}) for every M, in list order.
    template <class F>
    static void for_each(F&& f) {
        (f(MechTag<Ms>{}), ...);
    }

    // Every mechanism's group-wide constants, in list order.
    using Globals = std::tuple<typename Ms::Globals...>;
    static Globals globals(double celsius) { return {Ms::globals(celsius)...}; }
};

}  // namespace arbolito
