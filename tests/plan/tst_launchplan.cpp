// Launch plans: parsing, expressions, kernel signatures and resolution against an op and device limits.
#include "core/plan/launchplan.h"

#include <QtTest>

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

ShapeSet shapesFrom(const QString &text)
{
    ShapeSet shapes;
    for (const QString &pair : text.split(',', Qt::SkipEmptyParts)) {
        const QStringList parts = pair.split('=');
        shapes[parts.at(0).trimmed().toStdString()] = parts.at(1).trimmed().toLongLong();
    }
    return shapes;
}

const char *kindCode(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "ptr";
    case KernelParam::Kind::ConstPointer: return "cptr";
    case KernelParam::Kind::Int: return "int";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::Other: return "other";
    }
    return "?";
}

// "name(type name:kind, ...); ..." for compact expectations.
QString describe(const std::vector<KernelSignature> &kernels)
{
    QStringList described;
    for (const KernelSignature &kernel : kernels) {
        QStringList params;
        for (const KernelParam &param : kernel.params)
            params << QString::fromStdString(param.type + (param.name.empty() ? "" : " " + param.name)) + ":"
                          + kindCode(param.kind);
        described << QString::fromStdString(kernel.name) + "(" + params.join(", ") + ")";
    }
    return described.join("; ");
}

const char *kReluPlan = R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"],
                             "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json";

} // namespace

class TestLaunchPlan : public QObject
{
    Q_OBJECT

private slots:
    void parsesTheDocumentedExample()
    {
        const auto plan = parseLaunchPlan(R"json({
          "scratch": [ {"name": "partial", "bytes": "4 * ceil_div(N, 256)"} ],
          "steps": [
            {"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"], "shared": "0",
             "args": [ {"input": "x"}, {"output": "out"}, {"int": "N"}, {"float": 0.5}, {"scratch": "partial"} ]},
            {"library": "aten::conv2d", "args": [ {"input": "x"}, {"input": "w"}, {"output": "y"} ]}
          ]
        })json");
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        QCOMPARE(plan->scratch.size(), size_t(1));
        QCOMPARE(plan->scratch[0].name, std::string("partial"));
        QCOMPARE(plan->scratch[0].bytesExpr, std::string("4 * ceil_div(N, 256)"));
        QCOMPARE(plan->steps.size(), size_t(2));

        const auto &kernel = std::get<KernelStep>(plan->steps[0]);
        QCOMPARE(kernel.kernel, std::string("relu_kernel"));
        QCOMPARE(kernel.grid, std::vector<std::string>{"ceil_div(N, 256)"});
        QCOMPARE(kernel.block, std::vector<std::string>{"256"});
        QCOMPARE(kernel.sharedBytesExpr, std::string("0"));
        QCOMPARE(kernel.args.size(), size_t(5));
        QCOMPARE(kernel.args[0].kind, PlanArg::Kind::Input);
        QCOMPARE(kernel.args[0].name, std::string("x"));
        QCOMPARE(kernel.args[1].kind, PlanArg::Kind::Output);
        QCOMPARE(kernel.args[2].kind, PlanArg::Kind::Int);
        QCOMPARE(kernel.args[2].expr, std::string("N"));
        QCOMPARE(kernel.args[3].kind, PlanArg::Kind::Float);
        QCOMPARE(kernel.args[3].value, 0.5);
        QCOMPARE(kernel.args[4].kind, PlanArg::Kind::Scratch);
        QCOMPARE(kernel.args[4].name, std::string("partial"));

        const auto &library = std::get<LibraryStep>(plan->steps[1]);
        QCOMPARE(library.op, std::string("aten::conv2d"));
        QCOMPARE(library.args.size(), size_t(3));
        QCOMPARE(library.args[2].kind, PlanArg::Kind::Output);
    }

    void integersStandForExpressions()
    {
        const auto plan = parseLaunchPlan(
            R"({"steps": [{"kernel": "k", "grid": [4, "N"], "block": [128], "shared": 512, "args": [{"int": 7}]}]})");
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        const auto &kernel = std::get<KernelStep>(plan->steps[0]);
        QCOMPARE(kernel.grid, (std::vector<std::string>{"4", "N"}));
        QCOMPARE(kernel.block, std::vector<std::string>{"128"});
        QCOMPARE(kernel.sharedBytesExpr, std::string("512"));
        QCOMPARE(kernel.args[0].expr, std::string("7"));
    }

    void roundTripsThroughCanonicalJson()
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
        PlanArg none{PlanArg::Kind::None};
        PlanArg text{PlanArg::Kind::String, "", "", 0, {}, false, false, "tanh"};
        LibraryStep pooling{"aten::max_pool2d", {shaped, ints, flag, none, text, {PlanArg::Kind::Output, "out", "", 0}}};
        plan.steps = {kernel, library, pooling};

        const std::string json = toJson(plan);
        const auto parsed = parseLaunchPlan(json);
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        QVERIFY(*parsed == plan);
        QCOMPARE(toJson(*parsed), json);
    }

    void rejectsMalformedPlans_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");

        const QString step = R"({"kernel": "k", "grid": ["1"], "block": ["1"], "args": []})";
        QTest::newRow("not JSON") << "{steps: ]" << "plan: invalid JSON";
        QTest::newRow("not an object") << "[]" << "plan: must be a JSON object";
        QTest::newRow("no steps") << "{}" << "plan: missing \"steps\"";
        QTest::newRow("empty steps") << R"({"steps": []})" << "steps: must be a non-empty array";
        QTest::newRow("steps not array") << R"({"steps": {}})" << "steps: must be a non-empty array";
        QTest::newRow("unknown top-level key") << R"({"steps": [)" + step + R"(], "extra": 1})"
                                               << "plan: unknown key 'extra'";
        QTest::newRow("step not object") << R"({"steps": [5]})" << "steps[0]: must be an object";
        QTest::newRow("neither kernel nor library") << R"({"steps": [{"args": []}]})"
                                                    << "steps[0]: needs \"kernel\" or \"library\"";
        QTest::newRow("kernel and library")
            << R"({"steps": [{"kernel": "k", "library": "aten::relu", "args": []}]})"
            << "steps[0]: has both \"kernel\" and \"library\"";
        QTest::newRow("empty kernel name") << R"({"steps": [{"kernel": "", "grid": ["1"], "block": ["1"], "args": []}]})"
                                           << "steps[0].kernel: must be a non-empty string";
        QTest::newRow("kernel name not string") << R"({"steps": [{"kernel": 3, "grid": ["1"], "block": ["1"], "args": []}]})"
                                                << "steps[0].kernel: must be a non-empty string";
        QTest::newRow("unknown step key")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "threads": 5, "args": []}]})"
            << "steps[0]: unknown key 'threads'";
        QTest::newRow("grid missing") << R"({"steps": [{"kernel": "k", "block": ["1"], "args": []}]})"
                                      << "steps[0]: missing \"grid\"";
        QTest::newRow("block missing") << R"({"steps": [{"kernel": "k", "grid": ["1"], "args": []}]})"
                                       << "steps[0]: missing \"block\"";
        QTest::newRow("grid empty") << R"({"steps": [{"kernel": "k", "grid": [], "block": ["1"], "args": []}]})"
                                    << "steps[0].grid: must be an array of 1 to 3 expressions";
        QTest::newRow("grid four entries")
            << R"({"steps": [{"kernel": "k", "grid": ["1","1","1","1"], "block": ["1"], "args": []}]})"
            << "steps[0].grid: must be an array of 1 to 3 expressions";
        QTest::newRow("block not array") << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": "256", "args": []}]})"
                                         << "steps[0].block: must be an array of 1 to 3 expressions";
        QTest::newRow("fractional grid entry")
            << R"({"steps": [{"kernel": "k", "grid": ["N", 1.5], "block": ["1"], "args": []}]})"
            << "steps[0].grid[1]: must be an expression (a string or an integer)";
        QTest::newRow("blank expression")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["  "], "args": []}]})"
            << "steps[0].block[0]: empty expression";
        QTest::newRow("shared not expression")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "shared": [], "args": []}]})"
            << "steps[0].shared: must be an expression";
        QTest::newRow("args missing") << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"]}]})"
                                      << "steps[0]: missing \"args\"";
        QTest::newRow("args not array") << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": {}}]})"
                                        << "steps[0].args: must be an array";
        QTest::newRow("unknown arg kind")
            << R"({"steps": [)" + step + R"(, {"kernel": "k", "grid": ["1"], "block": ["1"],
                   "args": [{"input": "x"}, {"output": "y"}, {"tensor": "z"}]}]})"
            << "steps[1].args[2]: unknown arg kind 'tensor'";
        QTest::newRow("arg with two keys")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"input": "x", "int": "N"}]}]})"
            << "steps[0].args[0]: must be an object with one key";
        QTest::newRow("arg not object")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": ["x"]}]})"
            << "steps[0].args[0]: must be an object with one key";
        QTest::newRow("input name not string")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"input": 3}]}]})"
            << "steps[0].args[0].input: must be a non-empty string";
        QTest::newRow("float as string")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"float": "0.5"}]}]})"
            << "steps[0].args[0].float: must be a number";
        QTest::newRow("int as fraction")
            << R"({"steps": [{"kernel": "k", "grid": ["1"], "block": ["1"], "args": [{"int": 2.5}]}]})"
            << "steps[0].args[0].int: must be an expression";
        QTest::newRow("ints not a list")
            << R"({"steps": [{"library": "aten::relu", "args": [{"ints": 3}]}]})"
            << "steps[0].args[0].ints: must be an array of at most 8 expressions";
        QTest::newRow("bool not a boolean")
            << R"({"steps": [{"library": "aten::relu", "args": [{"bool": 1}]}]})"
            << "steps[0].args[0].bool: must be true or false";
        QTest::newRow("none not null") << R"({"steps": [{"library": "aten::relu", "args": [{"none": 0}]}]})"
                                       << "steps[0].args[0].none: must be null";
        QTest::newRow("string not a string") << R"({"steps": [{"library": "aten::relu", "args": [{"string": 2}]}]})"
                                             << "steps[0].args[0].string: must be a string";
        QTest::newRow("shape on an int")
            << R"({"steps": [{"library": "aten::relu", "args": [{"int": "N", "shape": ["N"]}]}]})"
            << "steps[0].args[0]: must be an object with one key";
        QTest::newRow("shape not a list")
            << R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": "N"}]}]})"
            << "steps[0].args[0].shape: must be an array of at most 8 expressions";
        QTest::newRow("library with grid")
            << R"({"steps": [{"library": "aten::relu", "grid": ["1"], "args": []}]})" << "steps[0]: unknown key 'grid'";
        QTest::newRow("library name empty") << R"({"steps": [{"library": "", "args": []}]})"
                                            << "steps[0].library: must be a non-empty string";
        QTest::newRow("scratch not array") << R"({"scratch": {}, "steps": [)" + step + "]}"
                                           << "scratch: must be an array";
        QTest::newRow("scratch without bytes") << R"({"scratch": [{"name": "p"}], "steps": [)" + step + "]}"
                                               << "scratch[0]: missing \"bytes\"";
        QTest::newRow("scratch unknown key") << R"({"scratch": [{"name": "p", "bytes": "4", "align": 16}], "steps": [)"
                                                    + step + "]}"
                                             << "scratch[0]: unknown key 'align'";
        QTest::newRow("duplicate scratch")
            << R"({"scratch": [{"name": "p", "bytes": "4"}, {"name": "p", "bytes": "8"}], "steps": [)" + step + "]}"
            << "scratch[1].name: duplicate scratch buffer 'p'";
    }

    void rejectsMalformedPlans()
    {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        const auto plan = parseLaunchPlan(json.toStdString());
        QVERIFY(!plan);
        const QString message = QString::fromStdString(plan.error().message);
        QVERIFY2(message.startsWith(expected), qPrintable("got: " + message));
    }

    void evaluatesExpressions_data()
    {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<QString>("symbols");
        QTest::addColumn<qlonglong>("expected");

        QTest::newRow("symbol") << "N" << "N=4096" << 4096LL;
        QTest::newRow("literal") << "256" << "" << 256LL;
        QTest::newRow("ceil_div exact") << "ceil_div(N, 256)" << "N=4096" << 16LL;
        QTest::newRow("ceil_div rounds up") << "ceil_div(N + 1, 256)" << "N=4096" << 17LL;
        QTest::newRow("ceil_div negative dividend") << "ceil_div(-7, 2)" << "" << -3LL;
        QTest::newRow("ceil_div negative divisor") << "ceil_div(7, -2)" << "" << -3LL;
        QTest::newRow("ceil_div both negative") << "ceil_div(-7, -2)" << "" << 4LL;
        QTest::newRow("ceil_div with blank before parenthesis") << "ceil_div (N, 3)" << "N=10" << 4LL;
        QTest::newRow("integer division truncates") << "7 / 2" << "" << 3LL;
        QTest::newRow("division truncates toward zero") << "-7 / 2" << "" << -3LL;
        QTest::newRow("remainder") << "N % 3" << "N=10" << 1LL;
        QTest::newRow("remainder of negative") << "-7 % 3" << "" << -1LL;
        QTest::newRow("min") << "min(N, 1024)" << "N=4096" << 1024LL;
        QTest::newRow("max") << "max(1, M - 5)" << "M=3" << 1LL;
        QTest::newRow("nested functions") << "min(max(N, 1), ceil_div(M, 2))" << "N=4096,M=3" << 2LL;
        QTest::newRow("precedence") << "1 + 2 * 3" << "" << 7LL;
        QTest::newRow("parentheses") << "(1 + 2) * 3" << "" << 9LL;
        QTest::newRow("subtraction is left associative") << "10 - 2 - 3" << "" << 5LL;
        QTest::newRow("division is left associative") << "100 / 10 / 5" << "" << 2LL;
        QTest::newRow("division before multiplication") << "N / 256 * 256" << "N=1000" << 768LL;
        QTest::newRow("unary minus") << "-N + 1" << "N=4096" << -4095LL;
        QTest::newRow("unary plus") << "+5" << "" << 5LL;
        QTest::newRow("negated factor") << "2 * -3" << "" << -6LL;
        QTest::newRow("bytes of a large tensor") << "4 * B * N * D" << "B=16,N=4096,D=4096" << 1073741824LL;
        QTest::newRow("2^53 exactly") << "9007199254740992" << "" << 9007199254740992LL;
        QTest::newRow("large intermediate divided back") << "N * N * N * N / N" << "N=4096" << 68719476736LL;
        QTest::newRow("blanks") << "  N  " << "N=3" << 3LL;
        QTest::newRow("constants only") << "min(ceil_div(10, 4), 7) * 2" << "" << 6LL;
        QTest::newRow("underscored symbol") << "batch_size * 2" << "batch_size=8" << 16LL;
    }

    void evaluatesExpressions()
    {
        QFETCH(QString, expression);
        QFETCH(QString, symbols);
        QFETCH(qlonglong, expected);
        const auto value = evaluateIntExpression(expression.toStdString(), shapesFrom(symbols));
        QVERIFY2(value, value ? "" : value.error().message.c_str());
        QCOMPARE(qlonglong(*value), expected);
    }

    void rejectsBadExpressions_data()
    {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<QString>("symbols");
        QTest::addColumn<QString>("expected");

        QTest::newRow("unknown symbol") << "ceil_div(M2, 256)" << "N=4096,M=3" << "unknown symbol 'M2' (known: M, N)";
        QTest::newRow("unknown symbols") << "N + K * Q" << "N=4096" << "unknown symbols 'K', 'Q'";
        QTest::newRow("unknown function") << "sin(N)" << "N=1" << "unknown function 'sin'";
        QTest::newRow("division by zero") << "N / 0" << "N=1" << "division by zero";
        QTest::newRow("division by zero symbol") << "N / (M - 3)" << "N=1,M=3" << "division by zero";
        QTest::newRow("remainder by zero") << "N % (M - 3)" << "N=1,M=3" << "division by zero";
        QTest::newRow("ceil_div by zero") << "ceil_div(N, 0)" << "N=1" << "division by zero";
        QTest::newRow("constant ceil_div by zero") << "ceil_div(1, 0)" << "" << "division by zero";
        QTest::newRow("decimal literal") << "N * 0.5" << "N=4" << "non-integer literal '0.5'";
        QTest::newRow("exponent literal") << "1e3" << "" << "non-integer literal '1e3'";
        QTest::newRow("hex literal") << "0x10" << "" << "bad number '0x10'";
        QTest::newRow("literal beyond 2^53") << "9007199254740993" << "" << "literal 9007199254740993 exceeds 2^53";
        QTest::newRow("product beyond 2^53") << "N * N * N * N * N" << "N=4096" << "exceeds 2^53";
        QTest::newRow("symbol beyond 2^53") << "N" << "N=9007199254740993" << "symbol N = 9007199254740993 exceeds 2^53";
        QTest::newRow("empty") << "" << "" << "empty expression";
        QTest::newRow("blank") << "   " << "" << "empty expression";
        QTest::newRow("dangling operator") << "N +" << "N=1" << "Unexpected end of expression";
        QTest::newRow("two operands") << "N M" << "N=1,M=2" << "Unexpected variable";
        QTest::newRow("unexpected character") << "N $ 2" << "N=1" << "unexpected character '$'";
        QTest::newRow("comparison") << "N > 2" << "N=1" << "unexpected character '>'";
        QTest::newRow("too few arguments") << "min(N)" << "N=1" << "Too few parameters";
        QTest::newRow("too many arguments") << "min(1, 2, 3)" << "" << "Too many parameters";
        QTest::newRow("missing parenthesis") << "(N" << "N=1" << "Missing parenthesis";
        QTest::newRow("two expressions") << "N, N" << "N=1" << "one expression expected, found 2";
    }

    void rejectsBadExpressions()
    {
        QFETCH(QString, expression);
        QFETCH(QString, symbols);
        QFETCH(QString, expected);
        const auto value = evaluateIntExpression(expression.toStdString(), shapesFrom(symbols));
        QVERIFY2(!value, value ? qPrintable(QString("got %1").arg(*value)) : "");
        const QString message = QString::fromStdString(value.error().message);
        QVERIFY2(message.contains(expected), qPrintable("got: " + message));
    }

    void parsesKernelSignatures_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");

        QTest::newRow("one line") << R"(extern "C" __global__ void relu(const float* x, float* y, int n) { })"
                                  << "relu(const float* x:cptr, float* y:ptr, int n:int)";
        QTest::newRow("launch bounds and line breaks")
            << "extern \"C\"\n__global__ void\n__launch_bounds__(256, 2)\nrelu_kernel(const float* __restrict__ x,\n"
               "            float* __restrict__ out,\n            int n)\n{\n}\n"
            << "relu_kernel(const float* __restrict__ x:cptr, float* __restrict__ out:ptr, int n:int)";
        QTest::newRow("launch bounds before void")
            << R"(extern "C" __global__ __launch_bounds__(128) void k(float* y) {})" << "k(float* y:ptr)";
        QTest::newRow("extern C block")
            << "extern \"C\" {\n__global__ void a(float* y) {}\n__global__ void b(void) {}\n}\n"
            << "a(float* y:ptr); b()";
        QTest::newRow("integer types")
            << R"(extern "C" __global__ void k(long a, unsigned b, unsigned int c, long long d, size_t e,
                                              int64_t f, uint32_t g, short h, const int i, std::int64_t j) {})"
            << "k(long a:int, unsigned b:int, unsigned int c:int, long long d:int, size_t e:int, int64_t f:int, "
               "uint32_t g:int, short h:int, const int i:int, std::int64_t j:int)";
        QTest::newRow("float types") << R"(extern "C" __global__ void k(float a, double b, const float c) {})"
                                     << "k(float a:float, double b:float, const float c:float)";
        QTest::newRow("other types") << R"(extern "C" __global__ void k(float4 v, __half h, bool flag, float &r) {})"
                                     << "k(float4 v:other, __half h:other, bool flag:other, float & r:other)";
        QTest::newRow("pointer constness")
            << R"(extern "C" __global__ void k(float* const a, const float* const b, float const* c, const int* __restrict__ d) {})"
            << "k(float* const a:ptr, const float* const b:cptr, float const* c:cptr, const int* __restrict__ d:cptr)";
        QTest::newRow("arrays decay to pointers") << R"(extern "C" __global__ void k(float y[], const float x[4]) {})"
                                                  << "k(float[] y:ptr, const float[] x:cptr)";
        QTest::newRow("unnamed parameters") << R"(extern "C" __global__ void k(int, float*) {})"
                                            << "k(int:int, float*:ptr)";
        QTest::newRow("default argument") << R"(extern "C" __global__ void k(int n = 5) {})" << "k(int n:int)";
        QTest::newRow("macro for extern C")
            << "#define KERNEL extern \"C\" __global__\nKERNEL void k(float* y) {}\n" << "k(float* y:ptr)";
        QTest::newRow("C++ linkage is not listed")
            << "__global__ void mangled(float* y) {}\nextern \"C\" __global__ void plain(float* y) {}\n"
            << "plain(float* y:ptr)";
        QTest::newRow("device functions are not listed")
            << "extern \"C\" __device__ float twice(float x) { return 2 * x; }\n"
               "extern \"C\" __global__ void k(float* y) { y[0] = twice(y[0]); }\n"
            << "k(float* y:ptr)";
        QTest::newRow("comments and #if 0 are skipped")
            << "// extern \"C\" __global__ void line(int a) {}\n/* extern \"C\" __global__ void block(int a) {} */\n"
               "#if 0\nextern \"C\" __global__ void disabled(int a) {}\n#endif\n"
               "extern \"C\" __global__ void k(/* input */ const float* x) {}\n"
            << "k(const float* x:cptr)";
        QTest::newRow("declaration then definition")
            << "extern \"C\" __global__ void k(float* y);\nextern \"C\" __global__ void k(float* y) {}\n"
            << "k(float* y:ptr)";
        QTest::newRow("after templates and types")
            << "template<typename T> __device__ T add(T a, T b) { return a + b; }\n"
               "struct Pair { float a, b; __device__ float sum() const { return a + b; } };\n"
               "namespace detail { __device__ int twice(int v) { return 2 * v; } }\n"
               "extern \"C\" __global__ void k(Pair* p, int n) {}\n"
            << "k(Pair* p:ptr, int n:int)";
        QTest::newRow("no kernels") << "__device__ float f(float x) { return x; }\n" << "";
    }

    void parsesKernelSignatures()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QCOMPARE(describe(parseKernelSignatures(source.toStdString())), expected);
    }

    void resolvesAKernelStep()
    {
        const auto plan = parseLaunchPlan(kReluPlan);
        QVERIFY(plan);
        const auto resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 5000}}, parseKernelSignatures(kReluSource));
        QVERIFY2(resolved, resolved ? "" : resolved.error().message.c_str());
        QCOMPARE(resolved->steps.size(), size_t(1));
        const auto &step = std::get<ResolvedKernelStep>(resolved->steps[0]);
        QCOMPARE(step.kernel, std::string("relu_kernel"));
        QCOMPARE(step.grid, (std::array<std::int64_t, 3>{20, 1, 1}));
        QCOMPARE(step.block, (std::array<std::int64_t, 3>{256, 1, 1}));
        QCOMPARE(step.sharedBytes, std::int64_t(0));
        QCOMPARE(step.args.size(), size_t(3));
        QCOMPARE(step.args[0].kind, PlanArg::Kind::Input);
        QCOMPARE(step.args[0].name, std::string("x"));
        QCOMPARE(step.args[1].kind, PlanArg::Kind::Output);
        QCOMPARE(step.args[1].name, std::string("out"));
        QCOMPARE(step.args[2].kind, PlanArg::Kind::Int);
        QCOMPARE(step.args[2].intValue, std::int64_t(5000));
    }

    void resolvesScratchFloatsAndSeveralSteps()
    {
        const auto plan = parseLaunchPlan(R"json({
          "scratch": [{"name": "partial", "bytes": "4 * ceil_div(N, 256)"}],
          "steps": [
            {"kernel": "partial_sums", "grid": ["ceil_div(N, 256)"], "block": ["256"], "shared": "256 * 4",
             "args": [{"input": "x"}, {"scratch": "partial"}, {"int": "N"}, {"float": 0.25}]},
            {"kernel": "finish", "grid": ["1"], "block": ["32", "8"],
             "args": [{"scratch": "partial"}, {"output": "out"}, {"int": "ceil_div(N, 256)"}]},
            {"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}
          ]})json");
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        const auto resolved = resolveLaunchPlan(*plan, reluOp(true), {{"N", 4096}}, parseKernelSignatures(kMixedSource));
        QVERIFY2(resolved, resolved ? "" : resolved.error().message.c_str());
        QCOMPARE(resolved->scratchBytes.size(), size_t(1));
        QCOMPARE(resolved->scratchBytes[0].first, std::string("partial"));
        QCOMPARE(resolved->scratchBytes[0].second, std::int64_t(64));
        QCOMPARE(resolved->steps.size(), size_t(3));

        const auto &first = std::get<ResolvedKernelStep>(resolved->steps[0]);
        QCOMPARE(first.sharedBytes, std::int64_t(1024));
        QCOMPARE(first.args[1].kind, PlanArg::Kind::Scratch);
        QCOMPARE(first.args[3].floatValue, 0.25);
        const auto &second = std::get<ResolvedKernelStep>(resolved->steps[1]);
        QCOMPARE(second.block, (std::array<std::int64_t, 3>{32, 8, 1}));
        QCOMPARE(second.args[2].intValue, std::int64_t(16));
        const auto &library = std::get<ResolvedLibraryStep>(resolved->steps[2]);
        QCOMPARE(library.op, std::string("aten::relu"));
        QCOMPARE(library.args.size(), size_t(2));
    }

    void rejectsInvalidPlans_data()
    {
        QTest::addColumn<QString>("plan");
        QTest::addColumn<QString>("source");      // Empty: the ReLU kernel.
        QTest::addColumn<bool>("allowLibrary");
        QTest::addColumn<QString>("shapes");
        QTest::addColumn<QString>("expected");

        auto relu = [](const QString &grid, const QString &block, const QString &shared, const QString &args) {
            return QString(R"({"steps": [{"kernel": "relu_kernel", "grid": [%1], "block": [%2], "shared": "%3",
                                          "args": [%4]}]})")
                .arg(grid, block, shared, args);
        };
        const QString reluArgs = R"({"input": "x"}, {"output": "out"}, {"int": "N"})";
        const QString n = "N=4096";

        QTest::newRow("unknown kernel")
            << QString(R"({"steps": [{"kernel": "nope", "grid": ["1"], "block": ["1"], "args": []}]})") << "" << false
            << n << "steps[0].kernel: unknown kernel 'nope' (extern \"C\" __global__ functions of the source: relu_kernel)";
        QTest::newRow("unknown symbol")
            << relu(R"json("ceil_div(M, 256)")json", R"("256")", "0", reluArgs) << "" << false << n
            << "steps[0].grid[0]: unknown symbol 'M' (known: N) in \"ceil_div(M, 256)\"";
        QTest::newRow("zero grid") << relu(R"("N / 8192")", R"("256")", "0", reluArgs) << "" << false << n
                                   << "steps[0].grid[0]: must be positive, got 0";
        QTest::newRow("negative block") << relu(R"("1")", R"("-32")", "0", reluArgs) << "" << false << n
                                        << "steps[0].block[0]: must be positive, got -32";
        QTest::newRow("too many threads") << relu(R"("1")", R"("64", "32")", "0", reluArgs) << "" << false << n
                                          << "steps[0].block: 2048 threads per block exceed the limit of 1024";
        QTest::newRow("block x too large") << relu(R"("1")", R"("2048")", "0", reluArgs) << "" << false << n
                                           << "steps[0].block[0]: 2048 exceeds the maximum block dimension 1024";
        QTest::newRow("block z too large") << relu(R"("1")", R"("1", "1", "128")", "0", reluArgs) << "" << false << n
                                           << "steps[0].block[2]: 128 exceeds the maximum block dimension 64";
        QTest::newRow("grid y too large") << relu(R"("1", "70000")", R"("32")", "0", reluArgs) << "" << false << n
                                          << "steps[0].grid[1]: 70000 exceeds the maximum grid dimension 65535";
        QTest::newRow("too much shared memory")
            << relu(R"("1")", R"("32")", "300000", reluArgs) << "" << false << n
            << "steps[0].shared: 300000 bytes of dynamic shared memory exceed the limit of 232448";
        QTest::newRow("negative shared memory") << relu(R"("1")", R"("32")", "-4", reluArgs) << "" << false << n
                                                << "steps[0].shared: must not be negative, got -4";
        QTest::newRow("shared expression error") << relu(R"("1")", R"("32")", "N / 0", reluArgs) << "" << false << n
                                                 << "steps[0].shared: division by zero in \"N / 0\"";
        QTest::newRow("too few arguments") << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"})")
                                           << "" << false << n
                                           << "steps[0].args: kernel 'relu_kernel' takes 3 arguments, the plan passes 2";
        QTest::newRow("unknown input")
            << relu(R"("1")", R"("32")", "0", R"({"input": "y"}, {"output": "out"}, {"int": "N"})") << "" << false << n
            << "steps[0].args[0]: unknown input 'y' (inputs of 'relu': x)";
        QTest::newRow("input named as output")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "x"}, {"int": "N"})") << "" << false << n
            << "steps[0].args[1]: unknown output 'x' (outputs of 'relu': out)";
        QTest::newRow("input to integer parameter")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"input": "x"})") << "" << false << n
            << "steps[0].args[2]: input 'x' needs a pointer parameter, but parameter 2 'n' is int";
        QTest::newRow("output to const pointer")
            << relu(R"("1")", R"("32")", "0", R"({"output": "out"}, {"output": "out"}, {"int": "N"})") << "" << false << n
            << "steps[0].args[0]: output 'out' needs a non-const pointer parameter, but parameter 0 'x' is "
               "const float* __restrict__";
        QTest::newRow("int to pointer")
            << relu(R"("1")", R"("32")", "0", R"({"int": "N"}, {"output": "out"}, {"int": "N"})") << "" << false << n
            << "steps[0].args[0]: an int argument needs an integer parameter, but parameter 0 'x' is "
               "const float* __restrict__";
        QTest::newRow("float to int")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"float": 1.5})") << "" << false << n
            << "steps[0].args[2]: a float argument needs a float or double parameter, but parameter 2 'n' is int";
        QTest::newRow("int argument expression error")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"int": "N % 0"})") << "" << false
            << n << "steps[0].args[2]: division by zero in \"N % 0\"";
        QTest::newRow("value too large for int")
            << relu(R"("1")", R"("32")", "0", reluArgs) << "" << false << "N=3000000000"
            << "steps[0].args[2]: value 3000000000 does not fit parameter 2 'n' (int)";
        QTest::newRow("negative value for unsigned")
            << QString(R"({"steps": [{"kernel": "finish", "grid": ["1"], "block": ["32"],
                          "args": [{"input": "x"}, {"output": "out"}, {"int": "-1"}]}]})")
            << kMixedSource << false << n << "steps[0].args[2]: value -1 does not fit parameter 2 'count' (unsigned)";
        QTest::newRow("parameter type a plan cannot pass")
            << QString(R"({"steps": [{"kernel": "by_value", "grid": ["1"], "block": ["32"],
                          "args": [{"float": 1.0}, {"output": "out"}]}]})")
            << kMixedSource << false << n
            << "steps[0].args[0]: a float argument needs a float or double parameter, but parameter 0 'v' is float4";
        QTest::newRow("unknown scratch buffer")
            << QString(R"({"steps": [{"kernel": "finish", "grid": ["1"], "block": ["32"],
                          "args": [{"scratch": "tmp"}, {"output": "out"}, {"int": "1"}]}]})")
            << kMixedSource << false << n << "steps[0].args[0]: unknown scratch buffer 'tmp' (declared: none)";
        QTest::newRow("scratch read before written")
            << QString(R"({"scratch": [{"name": "tmp", "bytes": "64"}], "steps": [{"kernel": "finish", "grid": ["1"],
                          "block": ["32"], "args": [{"scratch": "tmp"}, {"output": "out"}, {"int": "1"}]}]})")
            << kMixedSource << false << n
            << "steps[0].args[0]: scratch buffer 'tmp' is read before any earlier step writes it (parameter 0 "
               "'partial' is const float*)";
        QTest::newRow("scratch to a value parameter")
            << QString(R"({"scratch": [{"name": "tmp", "bytes": "64"}], "steps": [{"kernel": "relu_kernel",
                          "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"output": "out"}, {"scratch": "tmp"}]}]})")
            << "" << false << n << "steps[0].args[2]: scratch buffer 'tmp' needs a pointer parameter, but parameter 2 'n' is int";
        QTest::newRow("zero scratch bytes")
            << QString(R"({"scratch": [{"name": "tmp", "bytes": "N - 4096"}], "steps": [{"kernel": "relu_kernel",
                          "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})")
            << "" << false << n << "scratch[0].bytes: must be positive, got 0";
        QTest::newRow("too much scratch")
            << QString(R"({"scratch": [{"name": "a", "bytes": "N * N * 1024"}, {"name": "b", "bytes": "N * N * 1024"}],
                          "steps": [{"kernel": "relu_kernel", "grid": ["1"], "block": ["32"],
                          "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})")
            << "" << false << n << "scratch[1].bytes: scratch buffers need 34359738368 bytes in total, more than the limit";
        QTest::newRow("library steps not allowed")
            << QString(R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})") << ""
            << false << n << "steps[0]: library steps are not allowed for op 'relu'";
        QTest::newRow("library op not allowed")
            << QString(R"({"steps": [{"library": "aten::mm", "args": [{"input": "x"}, {"output": "out"}]}]})") << ""
            << true << n << "steps[0].library: 'aten::mm' is not an allowed library op for 'relu' (allowed: aten::relu)";
        QTest::newRow("library step with unknown tensor")
            << QString(R"({"steps": [{"library": "aten::relu", "args": [{"input": "w"}, {"output": "out"}]}]})") << ""
            << true << n << "steps[0].args[0]: unknown input 'w'";
        QTest::newRow("ints to a kernel")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x"}, {"output": "out"}, {"ints": ["N"]})") << "" << false << n
            << "steps[0].args[2]: ints, bool, none and string arguments are for library steps; parameter 2 'n' is int";
        QTest::newRow("a shaped tensor to a kernel")
            << relu(R"("1")", R"("32")", "0", R"({"input": "x", "shape": ["N"]}, {"output": "out"}, {"int": "N"})") << ""
            << false << n
            << "steps[0].args[0]: a tensor shape is for library steps; parameter 0 'x' is const float* __restrict__";
        QTest::newRow("an input seen with other element count")
            << QString(R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["N", "2"]},
                          {"output": "out", "shape": ["N"]}]}]})") << "" << true << n
            << "steps[0].args[0].shape: 8192 elements, but 'x' holds 4096";
        QTest::newRow("a zero dimension in a shape")
            << QString(R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["N", "0"]},
                          {"output": "out"}]}]})") << "" << true << n
            << "steps[0].args[0].shape[1]: must be positive, got 0";
        QTest::newRow("control: a library step with a view and every argument kind")
            << QString(R"({"steps": [{"library": "aten::relu", "args": [{"input": "x", "shape": ["64", "N / 64"]},
                          {"ints": ["2", "N"]}, {"bool": true}, {"none": null}, {"string": "s"}, {"float": 0.5},
                          {"output": "out", "shape": ["N"]}]}]})") << "" << true << n << "";
        QTest::newRow("control: a valid two-kernel plan")
            << QString(R"({"steps": [{"kernel": "partial_sums", "grid": ["1"], "block": ["32"], "args":
                          [{"input": "x"}, {"output": "out"}, {"int": "N"}, {"float": 1}]},
                          {"kernel": "two_d", "grid": ["1"], "block": ["32"],
                          "args": [{"input": "x"}, {"output": "out"}, {"int": "1"}, {"int": "N"}]}]})")
            << kMixedSource << false << n << "";
        QTest::newRow("no output written")
            << QString(R"({"scratch": [{"name": "p", "bytes": "64"}], "steps": [{"kernel": "partial_sums",
                          "grid": ["1"], "block": ["32"], "args": [{"input": "x"}, {"scratch": "p"}, {"int": "N"},
                          {"float": 1}]}]})")
            << kMixedSource << false << n << "steps: output 'out' is never written";
    }

    void rejectsInvalidPlans()
    {
        QFETCH(QString, plan);
        QFETCH(QString, source);
        QFETCH(bool, allowLibrary);
        QFETCH(QString, shapes);
        QFETCH(QString, expected);

        const auto parsed = parseLaunchPlan(plan.toStdString());
        QVERIFY2(parsed, parsed ? "" : parsed.error().message.c_str());
        const std::string code = source.isEmpty() ? std::string(kReluSource) : source.toStdString();
        const auto resolved = resolveLaunchPlan(*parsed, reluOp(allowLibrary), shapesFrom(shapes),
                                                parseKernelSignatures(code));
        if (expected.isEmpty()) {
            // Control row: the same shapes of plan resolve when nothing is wrong.
            QVERIFY2(resolved, resolved ? "" : resolved.error().message.c_str());
            return;
        }
        QVERIFY2(!resolved, "resolved although invalid");
        const QString message = QString::fromStdString(resolved.error().message);
        QVERIFY2(message.startsWith(expected), qPrintable("got: " + message));
    }

    void appliesTheGivenDeviceLimits()
    {
        const auto plan = parseLaunchPlan(
            R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 512)"], "block": ["512"], "shared": "49152",
                           "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json");
        QVERIFY(plan);
        const auto kernels = parseKernelSignatures(kReluSource);
        QVERIFY(resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels));

        DeviceLimits small;
        small.maxThreadsPerBlock = 256;
        auto resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels, small);
        QVERIFY(!resolved);
        QCOMPARE(resolved.error().message, std::string("steps[0].block: 512 threads per block exceed the limit of 256"));

        DeviceLimits lowShared;
        lowShared.maxDynamicSharedBytes = 48 * 1024 - 1;
        resolved = resolveLaunchPlan(*plan, reluOp(), {{"N", 4096}}, kernels, lowShared);
        QVERIFY(!resolved);
        QVERIFY(resolved.error().message.find("49152 bytes of dynamic shared memory exceed the limit of 49151")
                != std::string::npos);
    }
};

QTEST_MAIN(TestLaunchPlan)
#include "tst_launchplan.moc"
