// Products on handwritten op graphs (the shape problem.json gives them): transposed operands read in place, bmm,
// 3-D and 4-D operands folded into the rows (matmul and einsum), triu and tril of a product, and diag(v) @ b as a
// scaling of rows; the recipe each becomes, its FLOPs, library call and tolerance, that its first candidate
// compiles, and the exact errors for what does not fit.
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/opcost.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using kx::test::checkCompiles;
using kx::test::makeOp;

namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape)
{
    return {std::move(name), std::move(shape), "float32"};
}

// A tensor argument or output of a graph call.
nlohmann::json value(const std::string &name, const std::vector<std::int64_t> &shape)
{
    return {{"value", name}, {"shape", shape}, {"dtype", "float32"}};
}

// A graph call; arguments that are not tensors (no "value") are constants.
nlohmann::json call(const std::string &kind, const std::vector<nlohmann::json> &arguments, const nlohmann::json &output)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto &argument : arguments) {
        nlohmann::json constant = nlohmann::json::object();
        constant["const"] = argument;
        inputs.push_back(argument.is_object() && argument.contains("value") ? argument : constant);
    }
    nlohmann::json node = nlohmann::json::object();
    node["kind"] = kind;
    node["inputs"] = inputs;
    node["outputs"] = nlohmann::json::array();
    node["outputs"].push_back(output);
    return node;
}

// The graph of the calls over the op's inputs (each the graph value of its name) that returns `result`.
OpGraph graphOf(const Op &op, const std::vector<nlohmann::json> &nodes, const std::string &result)
{
    nlohmann::json json = nlohmann::json::object();
    json["inputs"] = nlohmann::json::array();
    for (const auto &input : op.inputs)
        json["inputs"].push_back({{"value", input.name}, {"name", input.name}});
    json["outputs"] = nlohmann::json::array();
    json["outputs"].push_back(result);
    json["nodes"] = nodes;
    auto graph = opGraphFromJson(json);
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

Op translated(const Op &op, const OpGraph &graph)
{
    auto result = GraphTranslator().translate(graph, op);
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    return *result;
}

OpRecipe recipeOfOp(const Op &op)
{
    const auto recipe = recipeOf(op);
    REQUIRE(recipe);
    return *recipe;
}

std::string errorOf(const Op &op, const OpGraph &graph)
{
    const auto result = GraphTranslator().translate(graph, op);
    REQUIRE_FALSE(result);
    return result.error().message;
}

} // namespace

TEST_CASE("a.T @ b, a @ b.T and a.T @ b.T read the operands in place (KernelBench's 16 to 18)")
{
    const ShapeSet sizes{{"M", 64}, {"K", 128}, {"N", 96}};
    const auto product = [&](bool transposeA, bool transposeB) {
        const Op op =
            makeOp({tensor("A", transposeA ? std::vector<std::string>{"K", "M"} : std::vector<std::string>{"M", "K"}),
                    tensor("B", transposeB ? std::vector<std::string>{"N", "K"} : std::vector<std::string>{"K", "N"})},
                   tensor("out", {"M", "N"}), {sizes, {{"M", 64}, {"K", 128}, {"N", 48}}});
        std::vector<nlohmann::json> nodes;
        if (transposeA)
            nodes.push_back(call("aten::numpy_T", {value("A", {128, 64})}, value("5", {64, 128})));
        if (transposeB)
            nodes.push_back(call("aten::numpy_T", {value("B", {96, 128})}, value("6", {128, 96})));
        nodes.push_back(call("aten::matmul",
                             {transposeA ? value("5", {64, 128}) : value("A", {64, 128}),
                              transposeB ? value("6", {128, 96}) : value("B", {128, 96})},
                             value("7", {64, 96})));
        return std::pair{op, graphOf(op, nodes, "7")};
    };
    const struct
    {
        bool transposeA, transposeB;
        const char *library;
    } rows[] = {{true, false, "aten::mm"}, {false, true, "aten::linear"}, {true, true, "aten::mm"}};
    for (const auto &row : rows) {
        CAPTURE(row.transposeA);
        CAPTURE(row.transposeB);
        const auto [op, graph] = product(row.transposeA, row.transposeB);
        const Op result = translated(op, graph);
        const OpRecipe recipe = recipeOfOp(result);
        CHECK(recipe.family == "gemm");
        CHECK(recipe.transposeA == row.transposeA);
        CHECK(recipe.transposeB == row.transposeB);
        CHECK(recipe.m == "M");
        CHECK(recipe.n == "N");
        CHECK(recipe.k == "K");
        CHECK_FALSE(isBatched(recipe));
        CHECK(result.policy.allowedLibraryOps == std::vector<std::string>{row.library});
        CHECK(result.policy.atol == doctest::Approx(atencalls::summationAtol(128)));
        CHECK(graphFlopsExpression(graph, op) == "2 * M * N * K");
        checkCompiles(result);
    }

    // A transpose the model returns as well is no operand view: it stays a call of its own.
    auto [op, graph] = product(true, false);
    graph.outputs = {"5"};
    op.outputs = {tensor("out", {"M", "K"})};
    CHECK(errorOf(op, graph).find("aten::numpy_T") != std::string::npos);
}

TEST_CASE("transpose(1, 2) and permute of a bmm operand read it transposed; a.T alone is the transpose recipe")
{
    const Op op = makeOp({tensor("A", {"B", "K", "M"}), tensor("W", {"B", "N", "K"})}, tensor("out", {"B", "M", "N"}),
                         {{{"B", 4}, {"M", 64}, {"K", 32}, {"N", 48}}, {{"B", 2}, {"M", 64}, {"K", 32}, {"N", 48}}});
    const auto graph = graphOf(
        op,
        {call("aten::transpose", {value("A", {4, 32, 64}), 1, 2}, value("5", {4, 64, 32})),
         call("aten::permute", {value("W", {4, 48, 32}), nlohmann::json::array({0, -1, -2})}, value("6", {4, 32, 48})),
         call("aten::bmm", {value("5", {4, 64, 32}), value("6", {4, 32, 48})}, value("7", {4, 64, 48}))},
        "7");
    const Op result = translated(op, graph);
    const OpRecipe recipe = recipeOfOp(result);
    CHECK(recipe.batch == "B");
    CHECK(recipe.transposeA);
    CHECK(recipe.transposeB);
    CHECK(result.policy.allowedLibraryOps == std::vector<std::string>{"aten::matmul"});
    checkCompiles(result);

    const Op matrix = makeOp({tensor("x", {"R", "C"})}, tensor("out", {"C", "R"}), {{{"R", 64}, {"C", 32}}});
    const auto alone = graphOf(matrix, {call("aten::numpy_T", {value("x", {64, 32})}, value("1", {32, 64}))}, "1");
    CHECK(recipeOfOp(translated(matrix, alone)).family == "transpose");
}

TEST_CASE("3-D and 4-D a times a matrix fold a's leading dimensions into the rows (KernelBench's 10 and 11)")
{
    const Op threeD =
        makeOp({tensor("A", {"N", "M", "K"}), tensor("B", {"K", "L"})}, tensor("out", {"N", "M", "L"}),
               {{{"N", 16}, {"M", 64}, {"K", 2048}, {"L", 96}}, {{"N", 8}, {"M", 64}, {"K", 2048}, {"L", 96}}});
    const auto matmul = graphOf(
        threeD, {call("aten::matmul", {value("A", {16, 64, 2048}), value("B", {2048, 96})}, value("5", {16, 64, 96}))},
        "5");
    const Op folded = translated(threeD, matmul);
    const OpRecipe recipe = recipeOfOp(folded);
    CHECK(recipe.leading == std::vector<std::string>{"N"});
    CHECK(recipe.m == "M");
    CHECK(recipe.n == "L");
    CHECK(recipe.k == "K");
    CHECK_FALSE(isBatched(recipe));
    CHECK(folded.policy.allowedLibraryOps == std::vector<std::string>{"aten::mm"});
    CHECK(folded.policy.rtol == doctest::Approx(1e-2)); // K = 2048
    CHECK(graphFlopsExpression(matmul, threeD) == "2 * N * M * L * K");
    checkCompiles(folded);

    // torch.einsum("bijl,lk->bijk", A, B): the operands are named in a list.
    const Op fourD = makeOp(
        {tensor("A", {"b", "i", "j", "l"}), tensor("B", {"l", "k"})}, tensor("out", {"b", "i", "j", "k"}),
        {{{"b", 2}, {"i", 8}, {"j", 16}, {"l", 32}, {"k", 48}}, {{"b", 1}, {"i", 8}, {"j", 16}, {"l", 32}, {"k", 48}}});
    const auto einsum = [&](const std::string &equation) {
        nlohmann::json operands = nlohmann::json::array();
        operands.push_back({{"value", "A"}});
        operands.push_back({{"value", "B"}});
        return graphOf(fourD, {call("aten::einsum", {equation, operands, nullptr}, value("8", {2, 8, 16, 48}))}, "8");
    };
    const Op contracted = translated(fourD, einsum("bijl,lk->bijk"));
    const OpRecipe fourRecipe = recipeOfOp(contracted);
    CHECK(fourRecipe.family == "gemm");
    CHECK(fourRecipe.leading == std::vector<std::string>{"b", "i"});
    CHECK(fourRecipe.m == "j");
    CHECK(fourRecipe.k == "l");
    CHECK(fourRecipe.n == "k");
    CHECK(graphFlopsExpression(einsum("bijl,lk->bijk"), fourD) == "2 * b * i * j * k * l");
    checkCompiles(contracted);

    // Einsums that are not such a product say so.
    CHECK(errorOf(fourD, einsum("bijl,lk->bijl"))
              .find("aten::einsum \"bijl,lk->bijl\" is not a matrix product the gemm "
                    "templates take")
          == 0);
    CHECK(errorOf(fourD, einsum("bijl,kl->bijk")).find("aten::einsum") == 0);
}

TEST_CASE("bmm is a batched gemm; a transposed 3-D a or a triangle by one shared b is batched too (KernelBench's 3)")
{
    const Op op = makeOp(
        {tensor("A", {"batch_size", "m", "k"}), tensor("B", {"batch_size", "k", "n"})},
        tensor("out", {"batch_size", "m", "n"}),
        {{{"batch_size", 8}, {"m", 64}, {"k", 128}, {"n", 96}}, {{"batch_size", 2}, {"m", 64}, {"k", 128}, {"n", 48}}});
    const auto graph = graphOf(
        op, {call("aten::bmm", {value("A", {8, 64, 128}), value("B", {8, 128, 96})}, value("5", {8, 64, 96}))}, "5");
    const Op result = translated(op, graph);
    const OpRecipe recipe = recipeOfOp(result);
    CHECK(recipe.batch == "batch_size");
    CHECK(recipe.m == "m");
    CHECK(recipe.k == "k");
    CHECK(recipe.n == "n");
    CHECK(recipe.leading.empty());
    CHECK(result.policy.allowedLibraryOps == std::vector<std::string>{"aten::matmul"});
    CHECK(result.policy.atol == doctest::Approx(atencalls::summationAtol(128)));
    CHECK(graphFlopsExpression(graph, op) == "2 * batch_size * m * n * k");
    checkCompiles(result);

    const Op shared = makeOp({tensor("A", {"B", "K", "M"}), tensor("W", {"K", "N"})}, tensor("out", {"B", "M", "N"}),
                             {{{"B", 4}, {"M", 64}, {"K", 32}, {"N", 48}}});
    const auto sharedGraph =
        graphOf(shared,
                {call("aten::transpose", {value("A", {4, 32, 64}), -1, -2}, value("5", {4, 64, 32})),
                 call("aten::matmul", {value("5", {4, 64, 32}), value("W", {32, 48})}, value("6", {4, 64, 48}))},
                "6");
    const OpRecipe sharedRecipe = recipeOfOp(translated(shared, sharedGraph));
    CHECK(sharedRecipe.batch == "B");
    CHECK(sharedRecipe.transposeA);
    CHECK_FALSE(sharedRecipe.transposeB);
    checkCompiles(translated(shared, sharedGraph));

    // Two batch dimensions are more than the templates take.
    const Op twice = makeOp({tensor("a", {"B", "C", "M", "K"}), tensor("b", {"B", "C", "K", "M"})},
                            tensor("out", {"B", "C", "M", "M"}), {{{"B", 2}, {"C", 3}, {"M", 8}, {"K", 16}}});
    const auto twiceGraph = graphOf(
        twice, {call("aten::matmul", {value("a", {2, 3, 8, 16}), value("b", {2, 3, 16, 8})}, value("3", {2, 3, 8, 8}))},
        "3");
    CHECK(errorOf(twice, twiceGraph)
          == "aten::matmul of [B, C, M, K] and [B, C, K, M]: the gemm templates take one batch dimension of both "
             "operands, or a b every batch shares; as a pipeline: every call would run as a library step "
             "(aten::matmul): there is nothing to generate");
}

TEST_CASE("triu and tril of a product keep a triangle of the gemm (KernelBench's 14 and 15)")
{
    const Op op = makeOp({tensor("A", {"N", "N"}), tensor("B", {"N", "N"})}, tensor("out", {"N", "N"}),
                         {{{"N", 128}}, {{"N", 64}}});
    const auto triangle = [&](const std::string &kind, nlohmann::json diagonal, bool scaled) {
        std::vector<nlohmann::json> nodes{
            call("aten::matmul", {value("A", {128, 128}), value("B", {128, 128})}, value("6", {128, 128}))};
        if (scaled)
            nodes.push_back(call("aten::mul", {value("6", {128, 128}), 2.0}, value("7", {128, 128})));
        nodes.push_back(call(kind, {value(scaled ? "7" : "6", {128, 128}), diagonal}, value("8", {128, 128})));
        return graphOf(op, nodes, "8");
    };
    const Op upper = translated(op, triangle("aten::triu", 0, false));
    const OpRecipe upperRecipe = recipeOfOp(upper);
    CHECK(upperRecipe.family == "gemm");
    CHECK(upperRecipe.triangle == "upper");
    CHECK(upperRecipe.diagonal == 0);
    CHECK(upperRecipe.expression == "acc");
    CHECK(upper.policy.allowedLibraryOps == std::vector<std::string>{"aten::mm"});
    // Half the products of a square: the roofline does not expect the whole product.
    CHECK(graphFlopsExpression(triangle("aten::triu", 0, false), op) == "N * N * N");
    checkCompiles(upper);

    const Op lower = translated(op, triangle("aten::tril", -1, true));
    const OpRecipe lowerRecipe = recipeOfOp(lower);
    CHECK(lowerRecipe.triangle == "lower");
    CHECK(lowerRecipe.diagonal == -1);
    CHECK(lowerRecipe.expression == "(acc * 2.0f)");
    checkCompiles(lower);

    // Not square, a triangle may keep much less than half: no FLOPs are claimed for its product.
    const Op wide = makeOp({tensor("A", {"M", "K"}), tensor("B", {"K", "N"})}, tensor("out", {"M", "N"}),
                           {{{"M", 512}, {"K", 64}, {"N", 32}}});
    const auto wideGraph =
        graphOf(wide,
                {call("aten::matmul", {value("A", {512, 64}), value("B", {64, 32})}, value("6", {512, 32})),
                 call("aten::triu", {value("6", {512, 32}), 0}, value("7", {512, 32}))},
                "7");
    CHECK(graphFlopsExpression(wideGraph, wide) == "0");
    CHECK(recipeOfOp(translated(wide, wideGraph)).triangle == "upper");

    // An elementwise call after the triangle would change its zeros: the triangle is no longer the product's.
    const auto after =
        graphOf(op,
                {call("aten::matmul", {value("A", {128, 128}), value("B", {128, 128})}, value("6", {128, 128})),
                 call("aten::triu", {value("6", {128, 128}), 0}, value("7", {128, 128})),
                 call("aten::exp", {value("7", {128, 128})}, value("8", {128, 128}))},
                "8");
    const auto notGemm = GraphTranslator().translate(after, op);
    CHECK((!notGemm || recipeOfOp(*notGemm).family != "gemm"));

    // The triangle of each matrix of a 3-D a by one b: a batch, not folded rows.
    const Op batched = makeOp({tensor("A", {"L", "M", "K"}), tensor("B", {"K", "M"})}, tensor("out", {"L", "M", "M"}),
                              {{{"L", 3}, {"M", 64}, {"K", 32}}});
    const auto batchedGraph =
        graphOf(batched,
                {call("aten::matmul", {value("A", {3, 64, 32}), value("B", {32, 64})}, value("6", {3, 64, 64})),
                 call("aten::tril", {value("6", {3, 64, 64}), 0}, value("7", {3, 64, 64}))},
                "7");
    const OpRecipe batchedRecipe = recipeOfOp(translated(batched, batchedGraph));
    CHECK(batchedRecipe.batch == "L");
    CHECK(batchedRecipe.leading.empty());
    CHECK(batchedRecipe.triangle == "lower");
    checkCompiles(translated(batched, batchedGraph));
}

TEST_CASE("diag(v) @ b scales b's rows, b @ diag(v) its columns, v.unsqueeze(1) * b its rows (KernelBench's 12)")
{
    const Op op = makeOp({tensor("A", {"N"}), tensor("B", {"N", "M"})}, tensor("out", {"N", "M"}),
                         {{{"N", 64}, {"M", 96}}, {{"N", 32}, {"M", 96}}});
    const auto diagonal =
        graphOf(op,
                {call("aten::diag", {value("A", {64}), 0}, value("6", {64, 64})),
                 call("aten::matmul", {value("6", {64, 64}), value("B", {64, 96})}, value("7", {64, 96}))},
                "7");
    const Op rows = translated(op, diagonal);
    const OpRecipe rowsRecipe = recipeOfOp(rows);
    CHECK(rowsRecipe.family == "elementwise");
    CHECK(rowsRecipe.expression == "(A * B)");
    CHECK(rowsRecipe.rowInputs == std::vector<std::string>{"A"});
    CHECK(rows.policy.atol == doctest::Approx(1e-4));
    // One product an element, not the N x N x M of a dense product.
    CHECK(graphFlopsExpression(diagonal, op) == "N * M");
    checkCompiles(rows);

    const auto unsqueezed =
        graphOf(op,
                {call("aten::unsqueeze", {value("A", {64}), 1}, value("6", {64, 1})),
                 call("aten::mul", {value("6", {64, 1}), value("B", {64, 96})}, value("7", {64, 96}))},
                "7");
    const OpRecipe unsqueezedRecipe = recipeOfOp(translated(op, unsqueezed));
    CHECK(unsqueezedRecipe.family == "elementwise");
    CHECK(unsqueezedRecipe.rowInputs == std::vector<std::string>{"A"});
    checkCompiles(translated(op, unsqueezed));

    // Square: v's one dimension is b's both; the recipe says which it scales.
    const Op square = makeOp({tensor("B", {"N", "N"}), tensor("v", {"N"})}, tensor("out", {"N", "N"}), {{{"N", 64}}});
    const auto columns = graphOf(square,
                                 {call("aten::diag", {value("v", {64})}, value("6", {64, 64})),
                                  call("aten::mm", {value("B", {64, 64}), value("6", {64, 64})}, value("7", {64, 64})),
                                  call("aten::relu", {value("7", {64, 64})}, value("8", {64, 64}))},
                                 "8");
    const Op columnScale = translated(square, columns);
    const OpRecipe columnsRecipe = recipeOfOp(columnScale);
    CHECK(columnsRecipe.family == "elementwise");
    CHECK(columnsRecipe.rowInputs.empty());
    CHECK(columnsRecipe.expression.find("(B * v)") != std::string::npos);
    checkCompiles(columnScale);

    // diag of a matrix (its diagonal as a vector) is no diagonal matrix.
    const Op matrix =
        makeOp({tensor("X", {"N", "N"}), tensor("B", {"N", "M"})}, tensor("out", {"M"}), {{{"N", 64}, {"M", 96}}});
    const auto vectorDiagonal =
        graphOf(matrix,
                {call("aten::diag", {value("X", {64, 64}), 0}, value("6", {64})),
                 call("aten::matmul", {value("6", {64}), value("B", {64, 96})}, value("7", {96}))},
                "7");
    CHECK_FALSE(GraphTranslator().translate(vectorDiagonal, matrix));
}
