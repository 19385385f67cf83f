#include "lowered_cell/fvm_data.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <stdexcept>

#include "core/free_heap.hpp"
#include "core/parallel_for.hpp"
#include "core/parallel_sort.hpp"
#include "lowered_cell/timings.hpp"
#include "model/drawn_synapses.hpp"
#include "model/junction_points.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

std::vector<double> branch_ra(const CellDesc& c, const Morphology& m) {
    std::vector<double> ra;
    for (const auto& b : m.branches) ra.push_back(c.ra_of(b.tag));
    return ra;
}

CellCvs discretize_cell(const CellDesc& c, const Morphology& m) {
    return discretize(m, c.policy, branch_ra(c, m), junction_points(c, m));
}

CellCvs discretize_cell(const CellDesc& c) { return discretize_cell(c, *c.shape()); }

CellCvs cell_cv_tree(const CellDesc& c, const Morphology& m) { return cv_tree(m, c.policy, junction_points(c, m)); }

int count_cell_cvs(const CellDesc& c) {
    const auto shape = c.shape();
    return count_cvs(*shape, c.policy, junction_points(c, *shape));
}

namespace {

// A point mechanism's placement: layout CV, parameters (catalogue order), and whether it
// may share an instance with an equal placement on its CV (a linear synapse of a cell
// whose policy coalesces synapses).
struct Item {
    const std::vector<double>* params;
    int cv;
    bool merge;
};
using Items = std::vector<Item>;

// Instances of a point mechanism (no weights: theirs is 1) from its items sorted by CV, stably (in
// order of placement within a CV). Returns the instance of each item. The sort's keys are
// (CV, item), distinct: the order is the stable sort's on any number of threads. An item
// that may merge joins the instance of the first item of its CV that may merge and has the
// same parameters; the instances on a CV are in order of their first items.
std::vector<int> fill_points(MechInstances& mi, std::size_t n_params, const Items& items) {
    const long n = static_cast<long>(items.size());
    std::vector<int> order(n);  // items by (CV, item)
    parallel_for(n, 1 << 14, [&](long i) { order[i] = static_cast<int>(i); });
    parallel_sort_distinct(order, [&](int a, int b) { return items[a].cv != items[b].cv ? items[a].cv < items[b].cv : a < b; });
    // first[r]: the sorted position of the first item whose instance item order[r] takes (r: its own).
    std::vector<int> first(n);
    parallel_for(n, 1 << 14, [&](long r) {
        first[r] = static_cast<int>(r);
        const Item& a = items[order[r]];
        if (!a.merge) return;
        for (long q = r - 1; q >= 0 && items[order[q]].cv == a.cv; --q) {
            const Item& b = items[order[q]];
            if (b.merge && (b.params == a.params || *b.params == *a.params)) first[r] = static_cast<int>(q);
        }
    });
    // Instance numbers in sorted order: one for each item that is its instance's first.
    std::vector<int> instance(n);
    int n_instances = 0;
    for (long r = 0; r < n; ++r)
        if (first[r] == r) instance[r] = n_instances++;
    std::vector<int> rank(n);
    mi.params.resize(n_params * n_instances);
    mi.cv.resize(n_instances);
    parallel_for(n, 1 << 14, [&](long r) {
        const int k = instance[first[r]];
        rank[order[r]] = k;
        if (first[r] != r) return;
        const Item& it = items[order[r]];
        mi.cv[k] = it.cv;
        for (std::size_t q = 0; q < n_params; ++q) mi.params[q * n_instances + k] = it.params->at(q);
    });
    return rank;
}

// Whether a cell of [gid_begin, gid_end) has a mechanism that uses ions.
bool model_uses_ions(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end) {
    std::vector<char> uses;
    for (const MechInfo& mi : mechanism_infos()) uses.push_back(!mi.ions.empty());
    auto used = [&](const std::string& name) {
        const MechInfo* mi = find_mechanism(name);
        return mi && uses[mi->index];
    };
    for (std::uint64_t g = gid_begin; g < gid_end; ++g) {
        const CellDesc& c = m.cells[g];
        for (const Paint& p : c.paints)
            if (used(p.mechanism)) return true;
        for (const Placement& p : c.stimuli)
            if (used(p.mechanism)) return true;
        for (std::size_t k = 0; k < c.n_synapses(); ++k)
            if (used(c.synapse_mechanism(k))) return true;
    }
    return false;
}

// The group's ion species (those its instances use) and their initial values per CV:
// defaults, then each cell's settings in order, on the CVs of their region; e by Nernst where
// an instance on the CV reads or writes the concentrations (NEURON: the concentrations are
// then initialised and e computed from them, a given e unused). owner, tag_at, area: per
// layout CV its cell, its branch's tag and its area (µm²).
void lower_ions(const Model& m, FvmData& f, const int* owner, const int* tag_at, const double* area) {
    const int n = f.n_cv();
    const std::vector<MechInfo>& infos = mechanism_infos();
    for (int x = 0; x < n_mechanisms; ++x) {
        if (f.mechs[x].size() == 0) continue;
        for (const IonUse& u : infos[x].ions) {
            int s = 0;
            while (s < static_cast<int>(f.ions.size()) && f.ions[s].name != u.name) ++s;
            if (s == static_cast<int>(f.ions.size())) {
                IonSpecies sp;
                sp.name = u.name;
                const IonDefaults d = ion_defaults(u.name, u.valence);
                sp.valence = d.valence;
                sp.e.assign(n, d.e);
                sp.xi.assign(n, d.xi);
                sp.xo.assign(n, d.xo);
                f.ions.push_back(std::move(sp));
            } else if (f.ions[s].valence != u.valence) {
                throw std::invalid_argument("mechanism " + infos[x].name + " gives ion " + u.name + " valence " +
                                            std::to_string(u.valence) + ", another mechanism " +
                                            std::to_string(f.ions[s].valence));
            }
            f.mech_ions[x].push_back(s);
        }
    }
    if (f.ions.empty()) return;
    std::vector<char> real(n, 1);
    for (int x : f.layout.padding) real[x] = 0;
    for (IonSpecies& sp : f.ions)
        for (int L = 0; L < n; ++L) {
            if (!real[L]) continue;
            for (const IonSetting& st : m.cells[f.gids[owner[L]]].ions) {
                if (st.ion != sp.name || (st.tag >= 0 && st.tag != tag_at[L])) continue;
                if (!std::isnan(st.e)) sp.e[L] = st.e;
                if (!std::isnan(st.xi)) sp.xi[L] = st.xi;
                if (!std::isnan(st.xo)) sp.xo[L] = st.xo;
            }
        }
    // Per species and CV: 1 where an instance reads or writes the concentrations, 2 where
    // one writes them.
    std::vector<std::vector<char>> conc(f.ions.size(), std::vector<char>(n, 0));
    for (int x = 0; x < n_mechanisms; ++x)
        for (std::size_t j = 0; j < f.mech_ions[x].size(); ++j) {
            const unsigned fl = infos[x].ions[j].flags;
            const char use = fl & (ion_write_xi | ion_write_xo) ? 2 : fl & (ion_read_xi | ion_read_xo) ? 1 : 0;
            if (!use) continue;
            std::vector<char>& c = conc[f.mech_ions[x][j]];
            for (int cv : f.mechs[x].cv) c[cv] = std::max(c[cv], use);
        }
    for (std::size_t s = 0; s < f.ions.size(); ++s) {
        IonSpecies& sp = f.ions[s];
        for (int L = 0; L < n; ++L) {
            if (!conc[s][L]) continue;
            sp.e[L] = nernst(sp.xi[L], sp.xo[L], sp.valence, m.run.celsius);
            if (conc[s][L] == 2) sp.nernst_cv.push_back(L);
        }
    }
    f.ion_cv_weight.resize(n);
    for (int L = 0; L < n; ++L) f.ion_cv_weight[L] = real[L] ? 1e-2 * area[L] : 1.0;
}

// Probe columns that record something other than v: their source (FvmData::probe_source),
// the density instance on the column's CV or the ion species.
void lower_probe_sources(const Model& m, FvmData& f, const std::vector<std::uint32_t>& column_probe) {
    bool any = false;
    for (std::uint64_t g : f.gids)
        for (const Probe& p : m.cells[g].probes) any |= p.variable.kind != ProbeVariable::v;
    if (!any) return;
    f.probe_source.resize(f.probe_cv.size());
    for (int c = 0; c < f.n_cells(); ++c) {
        const CellDesc& desc = m.cells[f.gids[c]];
        for (std::size_t col = f.probe_offset[c]; col < f.probe_offset[c + 1]; ++col) {
            const std::uint32_t pi = column_probe[col];
            const Probe& p = desc.probes[pi];
            {
                FvmData::ProbeSource& src = f.probe_source[col];
                src.kind = p.variable.kind;
                const int cv = f.probe_cv[col];
                const std::string where = "cell " + std::to_string(f.gids[c]) + " probe " + std::to_string(pi) + " (" +
                                          p.variable.name + ")";
                if (src.kind == ProbeVariable::mech_state || src.kind == ProbeVariable::mech_current) {
                    const MechInfo* mi = find_mechanism(p.variable.mechanism);
                    const MechInstances& in = f.mechs[mi->index];
                    const auto it = std::lower_bound(in.cv.begin(), in.cv.end(), cv);
                    if (it == in.cv.end() || *it != cv)
                        throw std::invalid_argument(where + ": " + mi->name + " is not painted where the probe is");
                    src.index = mi->index;
                    src.state = p.variable.state;
                    src.instance = static_cast<int>(it - in.cv.begin());
                } else if (src.kind != ProbeVariable::v) {
                    int s = 0;
                    while (s < static_cast<int>(f.ions.size()) && f.ions[s].name != p.variable.ion) ++s;
                    if (s == static_cast<int>(f.ions.size()))
                        throw std::invalid_argument(where + ": no mechanism of the cell's group uses ion " + p.variable.ion);
                    src.index = s;
                }
            }
        }
    }
}

// Per cell, in layout numbering: the CVs of its synapses, stimuli and detectors, its probe columns.
struct CellPoints {
    std::vector<int> synapse, stimulus, detector, probe;
    std::vector<std::uint32_t> probe_branch, probe_index;
    std::vector<float> probe_pos;
};

// The steps of build_fvm, in the order it runs them, and the scratch they share.
struct FvmBuilder {
    const Model& m;
    FvmData& f;
    std::uint64_t gid_begin, gid_end;
    int nc = 0;  // cells of the group
    int n = 0;   // layout CVs
    // Scratch of n ints each, first touched in parallel (a serial fill of gigabytes of
    // fresh pages costs seconds), in blocks of CVs.
    static constexpr long block = 1 << 16;
    long n_blocks = 0;
    std::vector<const MechInfo*> density;           // the catalogue's density mechanisms
    std::vector<std::unique_ptr<int[]>> paint_at;   // per density mechanism: per layout CV, the winning paint or -1
    std::unique_ptr<int[]> owner;                   // the cell of a layout CV
    std::unique_ptr<double[]> area;                 // µm², read where a paint is marked
    std::vector<CellPoints> points_of;
    bool with_ions = false;
    std::unique_ptr<int[]> tag_at;                  // with ions: the SWC tag of each layout CV's branch
    std::vector<std::uint32_t> column_probe;        // per probe column, its probe on the cell

    FvmBuilder(const Model& model, FvmData& out, std::uint64_t begin, std::uint64_t end)
        : m(model), f(out), gid_begin(begin), gid_end(end), nc(static_cast<int>(end - begin)) {}

    std::unique_ptr<int[]> scratch(bool marked_none) const {
        std::unique_ptr<int[]> a(new int[std::max(1, n)]);
        if (marked_none) parallel_for(n_blocks, 1, [&](long b) {
            std::fill(a.get() + b * block, a.get() + std::min<long>(n, (b + 1) * block), -1);
        });
        return a;
    }

    // Numbers the cells' CVs: the gids, every cell's CV tree, the solver's layout; zeroes
    // the per-CV arrays but v_init (filled last, fill_v_init).
    void number_cvs(const LayoutMaker& make_layout) {
        f.gids.resize(nc);
        // The layout needs every cell's CV tree first; the rest of a cell's discretisation is
        // made again, cell by cell, once the layout is known, rather than kept for all cells
        // (about 57 bytes per CV, 3.3 GB at busyring's 32,768 cells). Cells are independent:
        // both passes run in parallel.
        std::vector<std::vector<int>> parents(nc);
        parallel_for(nc, 16, [&](long c) {
            f.gids[c] = gid_begin + c;
            const CellDesc& desc = m.cells.at(f.gids[c]);
            parents[c] = cell_cv_tree(desc, *desc.shape()).parent;
        });
        f.layout = make_layout(parents);
        std::vector<std::vector<int>>().swap(parents);
        return_free_heap();  // the CV trees' and the layout's per-cell scratch
        n = f.layout.n_cv;
        f.cap.assign(n, 0.0);
        f.g_parent.assign(n, 0.0);
        f.g_sum.assign(n, 0.0);
    }

    // Allocates the per-CV scratch of the cell pass: paint marks, owner, area, and tags with ions.
    void allocate_scratch() {
        // Density instances are first marked per layout CV (which paint of the cell won),
        // then listed in CV order: each CV holds at most one instance of a mechanism, so CV
        // order is the order a sort by CV gave, with no per-CV allocation.
        for (const MechInfo& mi : mechanism_infos())
            if (mi.kind == MechKind::density) density.push_back(&mi);
        n_blocks = (n + block - 1) / block;
        // Only for the mechanisms some cell of the group paints: a catalogue of many channels
        // (a user's .mod folders) costs a model that paints two of them nothing per CV.
        paint_at.resize(density.size());
        for (std::size_t k = 0; k < density.size(); ++k) {
            bool painted = false;
            for (std::uint64_t g = gid_begin; g < gid_end && !painted; ++g)
                for (const Paint& p : m.cells[g].paints) painted |= p.mechanism == density[k]->name;
            if (painted) paint_at[k] = scratch(true);
        }
        owner = scratch(false);
        area.reset(new double[std::max(1, n)]);
        points_of.resize(nc);
        // With ions: the SWC tag of each layout CV's branch (the ions' region settings).
        with_ions = model_uses_ions(m, gid_begin, gid_end);
        if (with_ions) tag_at = scratch(false);
    }

    // The layout CVs of cell c's synapses, stimuli, detectors and probe columns.
    void locate_points(int c, const CellDesc& desc, const Morphology& shape, const CellCvs& cvs) {
        const auto& idx = f.layout.index[c];
        CellPoints& at = points_of[c];
        at.synapse.reserve(desc.n_synapses());
        for_each_synapse(desc, shape, [&](std::size_t, const Location& w, const std::string&, const std::vector<double>&) {
            at.synapse.push_back(idx[cvs.locate(w.branch, w.x)]);
        });
        for (const Placement& s : desc.stimuli) at.stimulus.push_back(idx[cvs.locate(s.where.branch, s.where.x)]);
        for (const Detector& d : desc.detectors) at.detector.push_back(idx[cvs.locate(d.where.branch, d.where.x)]);
        for (std::size_t pi = 0; pi < desc.probes.size(); ++pi) {
            const Probe& p = desc.probes[pi];
            auto add_column = [&](int i) {
                at.probe.push_back(idx[i]);
                at.probe_index.push_back(static_cast<std::uint32_t>(pi));
                at.probe_branch.push_back(cvs.branch[i]);
                at.probe_pos.push_back(static_cast<float>(cvs.pos[i]));
            };
            if (p.all_cvs) {
                for (int i = 0; i < cvs.size(); ++i)
                    if (cvs.area[i] > 0) add_column(i);
            } else {
                add_column(cvs.locate(p.where.branch, p.where.x));
            }
        }
    }

    // Cell c's per-CV electrical arrays (capacitance, axial conductances) and scratch (owner, area, tag).
    void fill_electrical(int c, const CellDesc& desc, const Morphology& shape, const CellCvs& cvs) {
        const auto& idx = f.layout.index[c];
        const auto& branches = shape.branches;
        std::vector<double> cm(branches.size());  // per branch: one map look-up a branch, not a CV
        for (std::size_t b = 0; b < branches.size(); ++b) cm[b] = desc.cm_of(branches[b].tag);
        for (int i = 0; i < cvs.size(); ++i) {
            const int L = idx[i];
            owner[L] = c;
            area[L] = cvs.area[i];
            if (with_ions) tag_at[L] = branches[cvs.branch[i]].tag;
            f.cap[L] = 1e-5 * cm[cvs.branch[i]] * cvs.area[i];
            if (cvs.parent[i] >= 0) {
                const int P = idx[cvs.parent[i]];
                // The conductance goes to the edge's child end in the layout: the CV
                // itself, or its natural parent where the solver re-rooted the cell.
                f.g_parent[f.layout.parent[L] == P ? L : P] = cvs.g_axial[i];
                f.g_sum[L] += cvs.g_axial[i];
                f.g_sum[P] += cvs.g_axial[i];
            }
        }
    }

    // Marks, per layout CV of cell c, the paint that wins for each painted density mechanism.
    void mark_paints(int c, const CellDesc& desc, const Morphology& shape, const CellCvs& cvs) {
        const auto& idx = f.layout.index[c];
        const auto& branches = shape.branches;
        // A later paint of the same mechanism on a CV replaces an earlier one.
        for (std::size_t pi = 0; pi < desc.paints.size(); ++pi) {
            const Paint& p = desc.paints[pi];
            const auto k = std::find_if(density.begin(), density.end(),
                                        [&](const MechInfo* mi) { return mi->name == p.mechanism; }) - density.begin();
            if (k == static_cast<long>(density.size()) || !paint_at[k]) continue;
            for (int i = 0; i < cvs.size(); ++i) {
                if (cvs.area[i] <= 0) continue;
                if (p.tag >= 0 && branches[cvs.branch[i]].tag != p.tag) continue;
                paint_at[k][idx[i]] = static_cast<int>(pi);
            }
        }
    }

    // Discretises each cell again, in parallel (a cell's CVs are its own): points, electrical arrays, paint marks.
    void lower_cells() {
        parallel_for(nc, 16, [&](long c) {
            const CellDesc& desc = m.cells[f.gids[c]];
            const auto shape = desc.shape();
            const CellCvs cvs = discretize_cell(desc, *shape);
            locate_points(static_cast<int>(c), desc, *shape, cvs);
            fill_electrical(static_cast<int>(c), desc, *shape, cvs);
            mark_paints(static_cast<int>(c), desc, *shape, cvs);
        });
    }

    // Lists each painted density mechanism's instances in CV order from the paint marks.
    void list_density_instances() {
        for (std::size_t k = 0; k < density.size(); ++k) {
            // Blocks of CVs count their instances, then write them from their offsets.
            const int* at = paint_at[k].get();
            if (!at) continue;  // painted on no cell of the group
            std::vector<std::size_t> first(n_blocks + 1, 0);
            parallel_for(n_blocks, 1, [&](long b) {
                first[b + 1] = std::count_if(at + b * block, at + std::min<long>(n, (b + 1) * block), [](int p) { return p >= 0; });
            });
            for (long b = 0; b < n_blocks; ++b) first[b + 1] += first[b];
            const std::size_t count = first[n_blocks];
            if (count == 0) continue;
            MechInstances& mi = f.mechs[density[k]->index];
            mi.cv.resize(count);
            mi.weight.resize(count);
            const std::size_t n_params = density[k]->params.size();
            mi.params.assign(n_params * count, 0.0);
            parallel_for(n_blocks, 1, [&](long b) {
                std::size_t j = first[b];
                for (long L = b * block; L < std::min<long>(n, (b + 1) * block); ++L) {
                    if (at[L] < 0) continue;
                    const int c = owner[L];
                    const std::vector<double>& params = m.cells[f.gids[c]].paints[at[L]].params;
                    mi.cv[j] = static_cast<int>(L);
                    mi.weight[j] = 1e-2 * area[L];
                    for (std::size_t q = 0; q < n_params; ++q) mi.params[q * count + j] = params.at(q);
                    ++j;
                }
            });
            paint_at[k].reset();
        }
    }

    // Point instances (synapses, stimuli) sorted by CV, the targets, detectors and probe columns, cell by cell.
    void list_point_instances() {
        std::array<Items, n_mechanisms> points;  // per point mechanism, in order of placement
        f.target_offset.push_back(0);
        f.detector_offset.push_back(0);
        f.probe_offset.push_back(0);
        auto point_index = [](const std::string& name) {
            const MechInfo* mi = find_mechanism(name);
            if (!mi || mi->kind == MechKind::density) throw std::logic_error("'" + name + "' is not a point mechanism");
            return mi->index;
        };
        // Each cell's items per point mechanism counted, then written from the cell's
        // offsets, the cells side by side (busyring: a thousand synapses a cell, hundreds
        // of millions in a GPU's share): the lists are those of the cells one after
        // another, in order of placement within a cell. A synapse's instance number is
        // known only after sorting: target_instance holds its index into its mechanism's
        // items until then.
        std::vector<std::array<std::size_t, n_mechanisms>> first(nc + 1);  // per cell: its first item of each
        first[0].fill(0);
        parallel_for(nc, 64, [&](long c) {
            const CellDesc& desc = m.cells.at(f.gids[c]);
            std::array<std::size_t, n_mechanisms>& count = first[c + 1];
            count.fill(0);
            for (const Placement& p : desc.synapses) ++count[point_index(p.mechanism)];
            if (desc.drawn_synapses.count > 0) count[point_index(desc.drawn_synapses.mechanism)] += desc.drawn_synapses.count;
            for (const Placement& p : desc.stimuli) ++count[point_index(p.mechanism)];
        });
        for (int c = 0; c < nc; ++c) {
            for (int x = 0; x < n_mechanisms; ++x) first[c + 1][x] += first[c][x];
            f.target_offset.push_back(f.target_offset.back() + m.cells.at(f.gids[c]).n_synapses());
        }
        for (int x = 0; x < n_mechanisms; ++x) points[x].resize(first[nc][x]);
        f.target_mech.resize(f.target_offset.back());
        f.target_instance.resize(f.target_offset.back());
        parallel_for(nc, 64, [&](long c) {
            const CellDesc& desc = m.cells.at(f.gids[c]);
            CellPoints& at = points_of[c];
            std::array<std::size_t, n_mechanisms> next = first[c];
            const std::size_t explicit_synapses = desc.synapses.size();
            const int drawn = desc.drawn_synapses.count > 0 ? point_index(desc.drawn_synapses.mechanism) : -1;
            for (std::size_t k = 0; k < desc.n_synapses(); ++k) {
                const int x = k < explicit_synapses ? point_index(desc.synapses[k].mechanism) : drawn;
                const std::uint32_t t = f.target_offset[c] + static_cast<std::uint32_t>(k);
                f.target_mech[t] = static_cast<std::uint8_t>(x);
                f.target_instance[t] = static_cast<int>(next[x]);
                points[x][next[x]++] = {&desc.synapse_params(k), at.synapse[k], coalesces(desc, mechanism_infos()[x])};
            }
            for (std::size_t k = 0; k < desc.stimuli.size(); ++k) {
                const int x = point_index(desc.stimuli[k].mechanism);
                points[x][next[x]++] = {&desc.stimuli[k].params, at.stimulus[k], false};
            }
            // Freed as the items are written, as one after another would (set-up's peak).
            std::vector<int>().swap(at.synapse);
            std::vector<int>().swap(at.stimulus);
        });
        for (int c = 0; c < nc; ++c) {
            const CellDesc& desc = m.cells.at(f.gids[c]);
            CellPoints& at = points_of[c];
            for (std::size_t k = 0; k < desc.detectors.size(); ++k) {
                f.detector_cv.push_back(at.detector[k]);
                f.detector_threshold.push_back(desc.detectors[k].threshold);
            }
            f.detector_offset.push_back(f.detector_offset.back() + desc.detectors.size());
            f.probe_cv.insert(f.probe_cv.end(), at.probe.begin(), at.probe.end());
            f.probe_element.insert(f.probe_element.end(), at.probe_branch.begin(), at.probe_branch.end());
            f.probe_pos.insert(f.probe_pos.end(), at.probe_pos.begin(), at.probe_pos.end());
            f.probe_offset.push_back(f.probe_cv.size());
            column_probe.insert(column_probe.end(), at.probe_index.begin(), at.probe_index.end());
            at = CellPoints{};
        }

        // Point mechanisms: sort by CV, then translate each target to its sorted instance.
        std::array<std::vector<int>, n_mechanisms> rank;
        bool shared = false;  // some instance stands for several items (coalesced synapses)
        for (int x = 0; x < n_mechanisms; ++x)
            if (!points[x].empty()) {
                rank[x] = fill_points(f.mechs[x], mechanism_infos()[x].params.size(), points[x]);
                shared |= f.mechs[x].cv.size() < points[x].size();
                Items().swap(points[x]);
            }
        parallel_for(static_cast<long>(f.target_instance.size()), 1 << 14,
                     [&](long k) { f.target_instance[k] = rank[f.target_mech[k]][f.target_instance[k]]; });
        if (shared) key_shared_targets();
    }

    // Where synapses were coalesced, each target's key: the first target of its instance
    // (a cell's instances are its own, so cell by cell). Events keyed by it are sorted and
    // applied per instance on every backend.
    void key_shared_targets() {
        std::array<std::vector<std::uint32_t>, n_mechanisms> first_target;  // per instance; each is one cell's
        for (int x = 0; x < n_mechanisms; ++x)
            if (mechanism_infos()[x].kind != MechKind::density) first_target[x].assign(f.mechs[x].cv.size(), UINT32_MAX);
        f.target_key.resize(f.target_instance.size());
        parallel_for(nc, 64, [&](long c) {
            for (std::uint32_t t = f.target_offset[c]; t < f.target_offset[c + 1]; ++t) {
                std::uint32_t& first = first_target[f.target_mech[t]][f.target_instance[t]];
                if (first == UINT32_MAX) first = t;
                f.target_key[t] = first;
            }
        });
    }

    // Every CV's initial voltage, its cell's (padding 0): made last, once the instances'
    // scratch is gone, so that set-up's peak does not hold it (8 bytes per CV).
    void fill_v_init() {
        f.v_init.assign(n, 0.0);
        parallel_for(nc, 64, [&](long c) {
            const double v = m.cells[f.gids[c]].v_init;
            for (int L : f.layout.index[c]) f.v_init[L] = v;
        });
    }

    // The ion species and their per-CV values, then the sources of the probe columns that record other than v.
    void lower_ions_and_probes() {
        if (with_ions) lower_ions(m, f, owner.get(), tag_at.get(), area.get());
        lower_probe_sources(m, f, column_probe);
    }
};

}  // namespace

FvmData build_fvm(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const LayoutMaker& make_layout,
                  const FvmElectricalTaker& take_electrical, FvmBuildPasses* passes) {
    Stopwatch w;
    auto done = [&](const char* pass) {
        if (passes) passes->emplace_back(pass, w.lap());
    };
    FvmData f;
    FvmBuilder b(m, f, gid_begin, gid_end);
    b.number_cvs(make_layout);
    done("CV numbering and layout");
    b.allocate_scratch();
    b.lower_cells();
    done("cells discretised");
    if (take_electrical) take_electrical(f);
    done("electrical terms taken");
    b.list_density_instances();
    done("density instances");
    if (!b.with_ions) {  // the ions' step is the last to read them
        b.owner.reset();
        b.area.reset();
    }
    b.list_point_instances();
    done("point instances, targets, probes");
    b.lower_ions_and_probes();
    b.fill_v_init();
    return_free_heap();  // the cells' discretisations and points
    done("ions, v_init, heap returned");
    return f;
}

void release_per_cv_inputs(FvmData& f) {
    for (std::vector<double>* a : {&f.cap, &f.g_parent, &f.g_sum, &f.v_init}) std::vector<double>().swap(*a);
}

void release_device_owned(FvmData& f) {
    for (MechInstances& mi : f.mechs) {
        std::vector<double>().swap(mi.weight);
        std::vector<double>().swap(mi.params);
    }
    std::vector<int>().swap(f.layout.parent);
}

}  // namespace arbolito
