// Launch plans: parsing, canonical JSON, and resolution against an op, the source's kernels and device limits.
// Expressions are tst_planexpression, kernel signatures tst_kernelsignatures.
#include "core/plan/launchplan.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kx;

namespace {

const char *kReluSource = R"(
extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] > 0.f ? x[i] : 0.f;
}
)";

// Kernels with every parameter kind, for the resolution tests.
const char *kMixedSource = R"(
extern "C" __global__ void partial_sums(const float* x, float* partial, long n, float scale) {}
extern "C" __global__ void finish(const float* partial, float* out, unsigned count) {}
extern "C" __global__ void by_value(float4 v, float* out) {}
extern "C" __global__ void two_d(const float* x, float* out, int rows, int cols) {}
)";

Op reluOp(bool allowLibrary = false)
{
    Op op;
    op.name = "relu";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 4096}}};
    op.policy.allowLibrarySteps = allowLibrary;
    if (allowLibrary)
        op.policy.allowedLibraryOps = {"aten::relu"};
    return op;
}

bool startsWith(const std::string &text, const std::string &prefix)
{
    return text.rfind(prefix, 0) == 0;
}

const char *kReluPlan = R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"],
                             "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json";

} // namespace

TEST_CASE("parses the documented example")
{
    const auto plan = parseLaunchPlan(R"json({
      "scratch": [ {"name": "partial", "bytes": "4 * ceil_div(N, 256)"} ],
      "steps": [
        {"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"], "shared": "0",
         "args": [ {"input": "x"}, {"output": "out"}, {"int": "N"}, {"float": 0.5}, {"scratch": "partial"} ]},
        {"library": "aten::conv2d", "args": [ {"input": "x"}, {"input": "w"}, {"output": "y"} ]}
      ]
    })json");
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    REQUIRE(plan->scratch.size() == size_t(1));
    CHECK(plan->scratch[0].name == std::string("partial"));
    CHECK(plan->scratch[0].bytesExpr == std::string("4 * ceil_div(N, 256)"));
    REQUIRE(plan->steps.size() == size_t(2));

    const auto &kernel = std::get<KernelStep>(plan->steps[0]);
    CHECK(kernel.kernel == std::string("relu_kernel"));
    CHECK(kernel.grid == std::vector<std::string>{"ceil_div(N, 256)"});
    CHECK(kernel.block == std::vector<std::string>{"256"});
    CHECK(kernel.sharedBytesExpr == std::string("0"));
    REQUIRE(kernel.args.size() == size_t(5));
    CHECK(kernel.args[0].kind == PlanArg::Kind::Input);
    CHECK(kernel.args[0].name == std::string("x"));
    CHECK(kernel.args[1].kind == PlanArg::Kind::Output);
    CHECK(kernel.args[2].kind == PlanArg::Kind::Int);
    CHECK(kernel.args[2].expr == std::string("N"));
    CHECK(kernel.args[3].kind == PlanArg::Kind::Float);
    CHECK(kernel.args[3].value == 0.5);
    CHECK(kernel.args[4].kind == PlanArg::Kind::Scratch);
    CHECK(kernel.args[4].name == std::string("partial"));

    const auto &library = std::get<LibraryStep>(plan->steps[1]);
    CHECK(library.op == std::string("aten::conv2d"));
    REQUIRE(library.args.size() == size_t(3));
    CHECK(library.args[2].kind == PlanArg::Kind::Output);
}

TEST_CASE("integers stand for expressions")
{
    const auto plan = parseLaunchPlan(
        R"({"steps": [{"kernel": "k", "grid": [4, "N"], "block": [128], "shared": 512, "args": [{"int": 7}]}]})");
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    const auto &kernel = std::get<KernelStep>(plan->steps[0]);
    CHECK(kernel.grid == std::vector<std::string>{"4", "N"});
    CHECK(kernel.block == std::vector<std::string>{"128"});
    CHECK(kernel.sharedBytesExpr == std::string("512"));
    CHECK(kernel.args[0].expr == std::string("7"));
}

TEST_CASE("round-trips through canonical JSON")
{
    LaunchPlan plan;
    plan.scratch = {{"partial", "4 * ceil_div(N, 256)"}};
    KernelStep kernel;
    kernel.kernel = "partial_sums";
    kernel.grid = {"ceil_div(N, 256)", "2"};
    kernel.block = {"256"};
    kernel.sharedBytesExpr = "256 * 4";
    kernel.args = {{PlanArg::Kind::Input, "x", "", 0},
                   {PlanArg::Kind::Scratch, "partial", "", 0},
                   {PlanArg::Kind::Int, "", "N", 0},
                   {PlanArg::Kind::Float, "", "", 0.1}};
    LibraryStep library{"aten::relu", {{PlanArg::Kind::Input, "x", "", 0}, {PlanArg::Kind::Output, "out", "", 0}}};
    // Library steps also take int lists, booleans, none, strings and tensors in a shape of the call's own.
    PlanArg shaped{PlanArg::Kind::Scratch, "partial", "", 0, {"N", "2"}, true};
    PlanArg ints{PlanArg::Kind::Ints, "", "", 0, {"2", "N / 2"}};
    PlanArg flag{PlanArg::Kind::Bool, "", "", 0, {}, false, true};
    PlanArg none;
    none.kind = PlanArg::Kind::None;
    PlanArg text{PlanArg::Kind::String, "", "", 0, {}, false, false, "tanh"};
    LibraryStep pooling{"aten::max_pool2d", {shaped, ints, flag, none, text, {PlanArg::Kind::Output, "out", "", 0}}};
    // And tensors seen as the transpose of their last two dimensions, shaped or not.
    PlanArg transposed{PlanArg::Kind::Input, "a", "", 0};
    transposed.transposed = true;
    PlanArg shapedTransposed = shaped;
    shapedTransposed.transposed = true;
    LibraryStep product{"aten::mm", {transposed, shapedTransposed, {PlanArg::Kind::Output, "out", "", 0}}};
    // And a convolution whose algorithm cuDNN picks by timing them.
    LibraryStep convolution{"aten::conv2d",
                            {{PlanArg::Kind::Input, "x", "", 0}, {PlanArg::Kind::Output, "out", "", 0}}};
    convolution.cudnnBenchmark = true;
    // And one on channels-last copies of its operands.
    LibraryStep channelsLast{"aten::conv3d",
                             {{PlanArg::Kind::Input, "x", "", 0}, {PlanArg::Kind::Output, "out", "", 0}}};
    channelsLast.channelsLast = true;
    plan.steps = {kernel, library, pooling, product, convolution, channelsLast};

    const std::string json = toJson(plan);
    const auto parsed = parseLaunchPlan(json);
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    CHECK(*parsed == plan);
    CHECK(toJson(*parsed) == json);
}

TEST_CASE("malformed plans are refused with the place of the fault")
{
    const std::string step = R"({"kernel": "k", "grid": ["1"], "block": ["1"], "args": []})";
    const struct
    {
        const char *name;
        std::string json;
        const char *expected;
    } rows[] = {
        {"not JSON", "{steps: ]", "plan: invalid JSON"},
        {"not an object", "[]", "plan: must be a JSON object"},
        {"no steps", "{}", "plan: missing \"steps\""},
        {"empty steps", R"({"steps": []})", "steps: must be a non-empty array"},
        {"steps not array", R"({"steps": {}})", "steps: must be a non-empty array"},
        {"unknown top-level key", R"({"steps": [)" + step + R"(], "extra": 1})", "plan: unknown key 'extra'"},
        {"step not object", R"({"steps": [5]})", "steps[0]: must be an object"},
        {"neither kernel nor library", R"({"steps": [{"args": []}]})", "steps[0]: needs \"kernel\" or \"library\""},
        {"kernel and library", R"({"steps": [{"kernel": "k", "library": "aten::relu", "args": []}]})",
         "steps[0]: has both \"kernel\" and \"library\""},
        {"empty kernel name", R"({"steps": [{"kernel": "", "grid": ["1"], "block": ["1"], "args": []}]})",
         "steps[0].kernel: must be a non-empty string"},
        {"kernel name not string", R"({"steps": [{"kernel": 3, "grid": ["1"], "block": ["1"], "args": []}]})",
         "steps[0].kernel: must be a non-empty string"},
        {"unknown step key", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "threads": 5, "args": []}]})",
         "steps[0]: unknown key 'threads'"},
        {"grid missing", R"({"steps": [{"kernel": "k", "block": ["1"], "args": []}]})", "steps[0]: missing \"grid\""},
        {"block missing", R"({"steps": [{"kernel": "k", "grid": ["1"], "args": []}]})", "steps[0]: missing \"block\""},
        {"grid empty", R"({"steps": [{"kernel": "k", "grid": [], "block": ["1"], "args": []}]})",
         "steps[0].grid: must be an array of 1 to 3 expressions"},
        {"grid four entries", R"({"steps": [{"kernel": "k", "grid": ["1","1","1","1"], "block": ["1"], "args": []}]})",
         "steps[0].grid: must be an array of 1 to 3 expressions"},
        {"block not array", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": "256", "args": []}]})",
         "steps[0].block: must be an array of 1 to 3 expressions"},
        {"fractional grid entry", R"({"steps": [{"kernel": "k", "grid": ["N", 1.5], "block": ["1"], "args": []}]})",
         "steps[0].grid[1]: must be an expression (a string or an integer)"},
        {"blank expression", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["  "], "args": []}]})",
         "steps[0].block[0]: empty expression"},
        {"shared not expression",
         R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "shared": [], "args": []}]})",
         "steps[0].shared: must be an expression"},
        {"args missing", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"]}]})",
         "steps[0]: missing \"args\""},
        {"args not array", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": {}}]})",
         "steps[0].args: must be an array"},
        {"unknown arg kind", R"({"steps": [)" + step + R"(, {"kernel": "k", "grid": ["1"], "block": ["1"],
         "args": [{"input": "x"}, {"output": "y"}, {"tensor": "z"}]}]})",
         "steps[1].args[2]: unknown arg kind 'tensor'"},
        {"arg with two keys",
         R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"input": "x", "int": "N"}]}]})",
         "steps[0].args[0]: must be an object with one key"},
        {"arg not object", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": ["x"]}]})",
         "steps[0].args[0]: must be an object with one key"},
        {"input name not string",
         R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"input": 3}]}]})",
         "steps[0].args[0].input: must be a non-empty string"},
        {"float as string",
         R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"float": "0.5"}]}]})",
         "steps[0].args[0].float: must be a number"},
        {"int as fraction", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"int": 2.5}]}]})",
         "steps[0].args[0].int: must be an expression"},
        {"ints not a list", R"({"steps": [{"library": "aten::relu", "args": [{"ints": 3}]}]})",
         "steps[0].args[0].ints: must be an array of at most 8 expressions"},
        {"bool not a boolean", R"({"steps": [{"library": "aten::relu", "args": [{"bool": 1}]}]})",
         "steps[0].args[0].bool: must be true or false"},
        {"none not null", R"({"steps": [{"library": "aten::relu", "args": [{"none": 0}]}]})",
         "steps[0].args[0].none: must be null"},
        {"string not a string", R"({"steps": [{"library": "aten::relu", "args": [{"string": 2}]}]})",
         "steps[0].args[0].string: must be a string"},
        {"shape on an int", R"({"steps": [{"library": "aten::relu", "args": [{"int": "N", "shape": ["N"]}]}]})",
         "steps[0].args[0]: must be an object with one key"},
        {"shape not a list", R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": "N"}]}]})",
         "steps[0].args[0].shape: must be an array of at most 8 expressions"},
        {"transposed not a boolean",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "transposed": 1}]}]})",
         "steps[0].args[0].transposed: must be true or false"},
        {"transposed on an int",
         R"({"steps": [{"library": "aten::relu", "args": [{"int": "N", "transposed": true}]}]})",
         "steps[0].args[0]: must be an object with one key"},
        {"library with grid", R"({"steps": [{"library": "aten::relu", "grid": ["1"], "args": []}]})",
         "steps[0]: unknown key 'grid'"},
        {"channelsLast not a boolean", R"({"steps": [{"library": "aten::conv2d", "channelsLast": 1, "args": []}]})",
         "steps[0].channelsLast: must be true or false"},
        {"channelsLast on a pooling",
         R"({"steps": [{"library": "aten::max_pool2d", "channelsLast": true, "args": []}]})",
         "steps[0].channelsLast: applies to convolutions only, not to 'aten::max_pool2d'"},
        {"channelsLast on a kernel", R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"],
         "channelsLast": true, "args": []}]})",
         "steps[0]: unknown key 'channelsLast'"},
        {"library name empty", R"({"steps": [{"library": "", "args": []}]})",
         "steps[0].library: must be a non-empty string"},
        {"scratch not array", R"({"scratch": {}, "steps": [)" + step + "]}", "scratch: must be an array"},
        {"scratch without bytes", R"({"scratch": [{"name": "p"}], "steps": [)" + step + "]}",
         "scratch[0]: missing \"bytes\""},
        {"scratch unknown key", R"({"scratch": [{"name": "p", "bytes": "4", "align": 16}], "steps": [)" + step + "]}",
         "scratch[0]: unknown key 'align'"},
        {"duplicate scratch",
         R"({"scratch": [{"name": "p", "bytes": "4"}, {"name": "p", "bytes": "8"}], "steps": [)" + step + "]}",
         "scratch[1].name: duplicate scratch buffer 'p'"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto plan = parseLaunchPlan(row.json);
            REQUIRE(!plan);
            CHECK_MESSAGE(startsWith(plan.error().message, row.expected), "got: " << plan.error().message);
        }
    }
}

TEST_CASE("resolves a kernel step")
{
    const auto plan = parseLaunchPlan(kReluPlan);
    REQUIRE(plan);
    const auto resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 5000}}, parseKernelSignatures(kReluSource));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    REQUIRE(resolved->steps.size() == size_t(1));
    const auto &step = std::get<ResolvedKernelStep>(resolved->steps[0]);
    CHECK(step.kernel == std::string("relu_kernel"));
    CHECK(step.grid == std::array<std::int64_t, 3>{20, 1, 1});
    CHECK(step.block == std::array<std::int64_t, 3>{256, 1, 1});
    CHECK(step.sharedBytes == std::int64_t(0));
    REQUIRE(step.args.size() == size_t(3));
    CHECK(step.args[0].kind == PlanArg::Kind::Input);
    CHECK(step.args[0].name == std::string("x"));
    CHECK(step.args[1].kind == PlanArg::Kind::Output);
    CHECK(step.args[1].name == std::string("out"));
    CHECK(step.args[2].kind == PlanArg::Kind::Int);
    CHECK(step.args[2].intValue == std::int64_t(5000));
}

TEST_CASE("resolves scratch buffers, floats and several steps")
{
    const auto plan = parseLaunchPlan(R"json({
      "scratch": [{"name": "partial", "bytes": "4 * ceil_div(N, 256)"}],
      "steps": [
        {"kernel": "partial_sums", "grid": ["ceil_div(N, 256)"], "block": ["256"], "shared": "256 * 4",
         "args": [{"input": "x"}, {"scratch": "partial"}, {"int": "N"}, {"float": 0.25}]},
        {"kernel": "finish", "grid": ["1"], "block": ["32", "8"],
         "args": [{"scratch": "partial"}, {"output": "out"}, {"int": "ceil_div(N, 256)"}]},
        {"library": "aten::relu", "cudnnBenchmark": true, "args": [{"input": "x"}, {"output": "out"}]}
      ]})json");
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    const auto resolved = resolveLaunchPlan(*plan, reluOp(true), {{"N", 4096}}, parseKernelSignatures(kMixedSource));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    REQUIRE(resolved->scratchBytes.size() == size_t(1));
    CHECK(resolved->scratchBytes[0].first == std::string("partial"));
    CHECK(resolved->scratchBytes[0].second == std::int64_t(64));
    REQUIRE(resolved->steps.size() == size_t(3));

    const auto &first = std::get<ResolvedKernelStep>(resolved->steps[0]);
    CHECK(first.sharedBytes == std::int64_t(1024));
    CHECK(first.args[1].kind == PlanArg::Kind::Scratch);
    CHECK(first.args[3].floatValue == 0.25);
    const auto &second = std::get<ResolvedKernelStep>(resolved->steps[1]);
    CHECK(second.block == std::array<std::int64_t, 3>{32, 8, 1});
    CHECK(second.args[2].intValue == std::int64_t(16));
    const auto &library = std::get<ResolvedLibraryStep>(resolved->steps[2]);
    CHECK(library.op == std::string("aten::relu"));
    CHECK(library.args.size() == size_t(2));
    CHECK(library.cudnnBenchmark);
    CHECK_FALSE(parseLaunchPlan(R"json({"steps": [{"library": "aten::relu", "cudnnBenchmark": 1, "args": []}]})json"));
    CHECK_FALSE(parseLaunchPlan(R"json({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"],
                                                   "cudnnBenchmark": true, "args": []}]})json"));
}

TEST_CASE("a convolution step may take channels-last copies of its operands")
{
    Op op;
    op.name = "conv";
    op.inputs = {{"x", {"B", "C", "H", "W"}, "float32"}, {"w", {"K", "C", "3", "3"}, "float32"}};
    op.outputs = {{"out", {"B", "K", "H", "W"}, "float32"}};
    op.shapeSets = {{{"B", 2}, {"C", 3}, {"K", 4}, {"H", 8}, {"W", 8}}};
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::conv2d", "aten::relu"};
    const auto planFor = [](const std::string &library, const std::string &flags) {
        return R"json({"steps": [{"library": ")json" + library + "\"" + flags
               + R"json(, "args": [{"input": "x"}, {"input": "w"}, {"ints": [1, 1]}, {"ints": [1, 1]},
                                    {"output": "out"}]}]})json";
    };
    const auto plan = parseLaunchPlan(planFor("aten::conv2d", R"(, "channelsLast": true)"));
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    CHECK(std::get<LibraryStep>(plan->steps[0]).channelsLast);
    const auto resolved = resolveLaunchPlan(*plan, op, op.shapeSets[0], {});
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    CHECK(std::get<ResolvedLibraryStep>(resolved->steps[0]).channelsLast);
    CHECK_FALSE(std::get<ResolvedLibraryStep>(resolved->steps[0]).cudnnBenchmark);

    // Without the key, or with false, the operands stay as they are (eager PyTorch's NCHW).
    for (const std::string &flags : {std::string(), std::string(R"(, "channelsLast": false)")}) {
        const auto plain = parseLaunchPlan(planFor("aten::conv2d", flags));
        REQUIRE(plain);
        CHECK_FALSE(std::get<LibraryStep>(plain->steps[0]).channelsLast);
        CHECK(toJson(*plain).find("channelsLast") == std::string::npos);
    }
    // Every convolution ATen names takes it, overloads included; other library ops refuse it.
    for (const char *convolution :
         {"aten::conv1d", "aten::conv3d", "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
          "aten::_convolution", "aten::convolution", "aten::conv2d.padding"}) {
        CAPTURE(convolution);
        CHECK(parseLaunchPlan(planFor(convolution, R"(, "channelsLast": true)")));
    }
    for (const char *other : {"aten::relu", "aten::conv_tbc", "aten::max_pool2d", "aten::mm"}) {
        CAPTURE(other);
        const auto refused = parseLaunchPlan(planFor(other, R"(, "channelsLast": true)"));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message
              == "steps[0].channelsLast: applies to convolutions only, not to '" + std::string(other) + "'");
    }
}

TEST_CASE("invalid plans are refused when resolved against the op, the kernels and the device")
{
    const auto relu = [](const std::string &grid, const std::string &block, const std::string &shared,
                         const std::string &args) {
        return R"({"steps": [{"kernel": "relu_kernel", "grid": [)" + grid + R"(], "block": [)" + block
               + R"(], "shared": ")" + shared + R"(", "args": [)" + args + "]}]}";
    };
    const std::string reluArgs = R"({"input": "x"}, {"output": "out"}, {"int": "N"})";
    const ShapeSet n{{"N", 4096}};
    const struct
    {
        const char *name;
        std::string plan;
        std::string source; // Empty: the ReLU kernel.
        bool allowLibrary;
        ShapeSet shapes;
        std::string expected; // Empty: a control row that resolves.
    } rows[] = {
        {"unknown kernel", R"({"steps": [{"kernel": "nope", "grid": ["1"], "block": ["1"], "args": []}]})", "", false,
         n, "steps[0].kernel: unknown kernel 'nope' (extern \"C\" __global__ functions of the source: relu_kernel)"},
        {"unknown symbol", relu(R"json("ceil_div(M, 256)")json", R"("256")", "0", reluArgs), "", false, n,
         "steps[0].grid[0]: unknown symbol 'M' (known: N) in \"ceil_div(M, 256)\""},
        {"zero grid", relu(R"("N / 8192")", R"("256")", "0", reluArgs), "", false, n,
         "steps[0].grid[0]: must be positive, got 0"},
        {"negative block", relu(R"("1")", R"("-32")", "0", reluArgs), "", false, n,
         "steps[0].block[0]: must be positive, got -32"},
        {"too many threads", relu(R"("1")", R"("64", "32")", "0", reluArgs), "", false, n,
         "steps[0].block: 2048 threads per block exceed the limit of 1024"},
        {"block x too large", relu(R"("1")", R"("2048")", "0", reluArgs), "", false, n,
         "steps[0].block[0]: 2048 exceeds the maximum block dimension 1024"},
        {"block z too large", relu(R"("1")", R"("1", "1", "128")", "0", reluArgs), "", false, n,
         "steps[0].block[2]: 128 exceeds the maximum block dimension 64"},
        {"grid y too large", relu(R"("1", "70000")", R"("32")", "0", reluArgs), "", false, n,
         "steps[0].grid[1]: 70000 exceeds the maximum grid dimension 65535"},
        {"too much shared memory", relu(R"("1")", R"("32")", "300000", reluArgs), "", false, n,
         "steps[0].shared: 300000 bytes of dynamic shared memory exceed the limit of 232448"},
        {"negative shared memory", relu(R"("1")", R"("32")", "-4", reluArgs), "", false, n,
         "steps[0].shared: must not be negative, got -4"},
        {"shared expression error", relu(R"("1")", R"("32")", "N / 0", reluArgs), "", false, n,
         "steps[0].shared: division by zero in \"N / 0\""},
        {"too few arguments", relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"})"), "", false, n,
         "steps[0].args: kernel 'relu_kernel' takes 3 arguments, the plan passes 2"},
        {"unknown input", relu(R"("1")", R"("32")", "0", R"({"input": "y"}, {"output": "out"}, {"int": "N"})"), "",
         false, n, "steps[0].args[0]: unknown input 'y' (inputs of 'relu': x)"},
        {"input named as output", relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "x"}, {"int": "N"})"),
         "", false, n, "steps[0].args[1]: unknown output 'x' (outputs of 'relu': out)"},
        {"input to integer parameter",
         relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"input": "x"})"), "", false, n,
         "steps[0].args[2]: input 'x' needs a pointer parameter, but parameter 2 'n' is int"},
        {"output to const pointer",
         relu(R"("1")", R"("32")", "0", R"({"output": "out"}, {"output": "out"}, {"int": "N"})"), "", false, n,
         "steps[0].args[0]: output 'out' needs a non-const pointer parameter, but parameter 0 'x' is "
         "const float* __restrict__"},
        {"int to pointer", relu(R"("1")", R"("32")", "0", R"({"int": "N"}, {"output": "out"}, {"int": "N"})"), "",
         false, n,
         "steps[0].args[0]: an int argument needs an integer parameter, but parameter 0 'x' is "
         "const float* __restrict__"},
        {"float to int", relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"float": 1.5})"), "",
         false, n, "steps[0].args[2]: a float argument needs a float or double parameter, but parameter 2 'n' is int"},
        {"int argument expression error",
         relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"int": "N % 0"})"), "", false, n,
         "steps[0].args[2]: division by zero in \"N % 0\""},
        {"value too large for int", relu(R"("1")", R"("32")", "0", reluArgs), "", false, ShapeSet{{"N", 3000000000}},
         "steps[0].args[2]: value 3000000000 does not fit parameter 2 'n' (int)"},
        {"negative value for unsigned",
         R"({"steps": [{"kernel": "finish", "grid": ["1"], "block": ["32"],
         "args": [{"input": "x"}, {"output": "out"}, {"int": "-1"}]}]})",
         kMixedSource, false, n, "steps[0].args[2]: value -1 does not fit parameter 2 'count' (unsigned)"},
        {"parameter type a plan cannot pass",
         R"({"steps": [{"kernel": "by_value", "grid": ["1"], "block": ["32"],
         "args": [{"float": 1.0}, {"output": "out"}]}]})",
         kMixedSource, false, n,
         "steps[0].args[0]: a float argument needs a float or double parameter, but parameter 0 'v' is float4"},
        {"unknown scratch buffer",
         R"({"steps": [{"kernel": "finish", "grid": ["1"], "block": ["32"],
         "args": [{"scratch": "tmp"}, {"output": "out"}, {"int": "1"}]}]})",
         kMixedSource, false, n, "steps[0].args[0]: unknown scratch buffer 'tmp' (declared: none)"},
        {"scratch read before written",
         R"({"scratch": [{"name": "tmp", "bytes": "64"}], "steps": [{"kernel": "finish", "grid": ["1"],
         "block": ["32"], "args": [{"scratch": "tmp"}, {"output": "out"}, {"int": "1"}]}]})",
         kMixedSource, false, n,
         "steps[0].args[0]: scratch buffer 'tmp' is read before any earlier step writes it (parameter 0 "
         "'partial' is const float*)"},
        {"scratch to a value parameter",
         R"({"scratch": [{"name": "tmp", "bytes": "64"}], "steps": [{"kernel": "relu_kernel",
         "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"output": "out"}, {"scratch": "tmp"}]}]})",
         "", false, n, "steps[0].args[2]: scratch buffer 'tmp' needs a pointer parameter, but parameter 2 'n' is int"},
        {"zero scratch bytes",
         R"({"scratch": [{"name": "tmp", "bytes": "N - 4096"}], "steps": [{"kernel": "relu_kernel",
         "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})",
         "", false, n, "scratch[0].bytes: must be positive, got 0"},
        {"too much scratch",
         R"({"scratch": [{"name": "a", "bytes": "N * N * 1024"}, {"name": "b", "bytes": "N * N * 1024"}],
         "steps": [{"kernel": "relu_kernel", "grid": ["1"], "block": ["32"],
         "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})",
         "", false, n, "scratch[1].bytes: scratch buffers need 34359738368 bytes in total, more than the limit"},
        {"library steps not allowed",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})", "", false, n,
         "steps[0]: library steps are not allowed for op 'relu'"},
        {"library op not allowed",
         R"({"steps": [{"library": "aten::mm", "args": [{"input": "x"}, {"output": "out"}]}]})", "", true, n,
         "steps[0].library: 'aten::mm' is not an allowed library op for 'relu' (allowed: aten::relu)"},
        {"library step with unknown tensor",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "w"}, {"output": "out"}]}]})", "", true, n,
         "steps[0].args[0]: unknown input 'w'"},
        {"ints to a kernel", relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"ints": ["N"]})"),
         "", false, n,
         "steps[0].args[2]: ints, bool, none and string arguments are for library steps; parameter 2 'n' is int"},
        {"a shaped tensor to a kernel",
         relu(R"("1")", R"("32")", "0", R"({"input": "x", "shape": ["N"]}, {"output": "out"}, {"int": "N"})"), "",
         false, n,
         "steps[0].args[0]: a tensor shape is for library steps; parameter 0 'x' is const float* __restrict__"},
        {"an input seen with other element count",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["N", "2"]},
         {"output": "out", "shape": ["N"]}]}]})",
         "", true, n, "steps[0].args[0].shape: 8192 elements, but 'x' holds 4096"},
        {"a zero dimension in a shape",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["N", "0"]},
         {"output": "out"}]}]})",
         "", true, n, "steps[0].args[0].shape[1]: must be positive, got 0"},
        {"a transposed tensor to a kernel",
         relu(R"("1")", R"("32")", "0", R"({"input": "x", "transposed": true}, {"output": "out"}, {"int": "N"})"), "",
         false, n,
         "steps[0].args[0]: a transposed view is for library steps; parameter 0 'x' is const float* __restrict__"},
        {"a vector transposed",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "transposed": true}, {"output": "out"}]}]})",
         "", true, n, "steps[0].args[0]: 'x' has 1 dimensions: a transposed view swaps the last two"},
        {"an output transposed",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out", "shape": ["64", "N / 64"],
         "transposed": true}]}]})",
         "", true, n, "steps[0].args[1]: output 'out' cannot be a transposed view: the library step writes it"},
        {"the result into a transposed scratch buffer",
         R"({"scratch": [{"name": "t", "bytes": "4 * N"}], "steps": [{"library": "aten::relu", "args": [{"input": "x"},
         {"scratch": "t", "shape": ["64", "N / 64"], "transposed": true}]}, {"library": "aten::relu",
         "args": [{"scratch": "t"}, {"output": "out"}]}]})",
         "", true, n, "steps[0].args[1]: scratch buffer 't' receives the result: it cannot be a transposed view"},
        {"control: a transposed view read, and a transposed scratch buffer read",
         R"({"scratch": [{"name": "t", "bytes": "4 * N"}], "steps": [{"library": "aten::relu", "args": [{"input": "x",
         "shape": ["64", "N / 64"], "transposed": true}, {"scratch": "t", "shape": ["N / 64", "64"]}]},
         {"library": "aten::relu", "args": [{"scratch": "t", "shape": ["N / 64", "64"], "transposed": true},
         {"output": "out", "shape": ["64", "N / 64"]}]}]})",
         "", true, n, ""},
        {"control: a library step with a view and every argument kind",
         R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["64", "N / 64"]},
         {"ints": ["2", "N"]}, {"bool": true}, {"none": null}, {"string": "s"}, {"float": 0.5},
         {"output": "out", "shape": ["N"]}]}]})",
         "", true, n, ""},
        {"control: a valid two-kernel plan",
         R"({"steps": [{"kernel": "partial_sums", "grid": ["1"], "block": ["32"], "args":
         [{"input": "x"}, {"output": "out"}, {"int": "N"}, {"float": 1}]},
         {"kernel": "two_d", "grid": ["1"], "block": ["32"],
         "args": [{"input": "x"}, {"output": "out"}, {"int": "1"}, {"int": "N"}]}]})",
         kMixedSource, false, n, ""},
        {"no output written", R"({"scratch": [{"name": "p", "bytes": "64"}], "steps": [{"kernel": "partial_sums",
             "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"scratch": "p"}, {"int": "N"},
             {"float": 1}]}]})",
         kMixedSource, false, n, "steps: output 'out' is never written"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto parsed = parseLaunchPlan(row.plan);
            REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
            const std::string code = row.source.empty() ? std::string(kReluSource) : row.source;
            const auto resolved =
                resolveLaunchPlan(*parsed, reluOp(row.allowLibrary), row.shapes, parseKernelSignatures(code));
            if (row.expected.empty()) {
                // Control row: the same shapes of plan resolve when nothing is wrong.
                CHECK_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
            } else {
                REQUIRE_MESSAGE(!resolved, "resolved although invalid");
                CHECK_MESSAGE(startsWith(resolved.error().message, row.expected), "got: " << resolved.error().message);
            }
        }
    }
}

TEST_CASE("applies the given device limits")
{
    const auto plan = parseLaunchPlan(
        R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 512)"], "block": ["512"], "shared": "49152",
                       "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json");
    REQUIRE(plan);
    const auto kernels = parseKernelSignatures(kReluSource);
    CHECK(resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels));

    DeviceLimits small;
    small.maxThreadsPerBlock = 256;
    auto resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels, small);
    REQUIRE(!resolved);
    CHECK(resolved.error().message == std::string("steps[0].block: 512 threads per block exceed the limit of 256"));

    DeviceLimits lowShared;
    lowShared.maxDynamicSharedBytes = 48 * 1024 - 1;
    resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels, lowShared);
    REQUIRE(!resolved);
    CHECK(resolved.error().message.find("49152 bytes of dynamic shared memory exceed the limit of 49151")
          != std::string::npos);
}
