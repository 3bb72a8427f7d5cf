#include "core/kernelbench/bundlereader.h"

#include "core/eval/protocol.h"
#include "core/kernelbench/devicemoves.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/opcost.h"
#include "core/util/hash.h"
#include "core/util/jsonparse.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kx {
namespace {

Expected<std::string> readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{"cannot read " + path.string()};
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

bool isIdentifier(const std::string &name)
{
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())))
        return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

Expected<TensorSpec> tensorSpec(const nlohmann::json &json, const std::string &where)
{
    if (!json.is_object() || !json.value("name", nlohmann::json()).is_string() || !json.contains("shape")
        || !json["shape"].is_array())
        return Error{where + ": needs a name and a shape"};
    TensorSpec spec;
    spec.name = json["name"].get<std::string>();
    if (!isIdentifier(spec.name))
        return Error{where + ": '" + spec.name + "' is not an identifier"};
    for (const auto &dimension : json["shape"]) {
        if (!dimension.is_string() || dimension.get<std::string>().empty())
            return Error{where + " (" + spec.name + "): dimensions must be symbols or sizes"};
        spec.shape.push_back(dimension.get<std::string>());
    }
    spec.dtype = json.value("dtype", std::string("float32"));
    return spec;
}

// The model's docstring is the best description a problem file has; else its file name.
std::string descriptionOf(const std::string &source, const std::string &fileName)
{
    const auto model = source.find("class Model");
    if (model != std::string::npos) {
        const auto quote = source.find("\"\"\"", model);
        const auto nextDef = source.find("def ", model);
        if (quote != std::string::npos && (nextDef == std::string::npos || quote < nextDef)) {
            const auto end = source.find("\"\"\"", quote + 3);
            if (end != std::string::npos) {
                std::string text = source.substr(quote + 3, end - quote - 3);
                text = text.substr(0, text.find("\n\n"));
                std::string collapsed;
                std::istringstream words(text);
                for (std::string word; words >> word;)
                    collapsed += (collapsed.empty() ? "" : " ") + word;
                if (!collapsed.empty())
                    return collapsed;
            }
        }
    }
    return "Imported from " + fileName + ".";
}

} // namespace

namespace {

Expected<ImportedProblem> readBundle(const std::string &bundleDir, const std::string &problemPath)
{
    const std::filesystem::path dir(bundleDir);
    const auto source = readFile(problemPath);
    if (!source)
        return source.error();
    const auto problemText = readFile(dir / "problem.json");
    if (!problemText)
        return Error{"the bundle has no problem.json"};
    const auto module = readFile(dir / "reference.pt");
    if (!module || module->empty())
        return Error{"the bundle has no reference.pt"};
    const auto parsed = parseJson(*problemText);
    if (!parsed)
        return Error{"problem.json is not JSON: " + parsed.error().message};
    const nlohmann::json &problem = *parsed;
    if (!problem.is_object() || problem.value("format", nlohmann::json()) != 1)
        return Error{"problem.json has an unknown format (expected format 1)"};

    ImportedProblem imported;
    imported.sha256 = sha256Hex(*source);
    if (problem.value("sha256", std::string()) != imported.sha256)
        return Error{problemPath + " changed while it was being imported"};
    Op &op = imported.op;
    const std::filesystem::path file(problemPath);
    op.name = "kb/" + file.stem().string();
    op.sourceKind = SourceKind::KernelBench;
    op.description = descriptionOf(*source, file.filename().string());
    op.referenceSource = *source;
    op.referenceModule = base64Encode(*module);
    for (const auto &[key, list] : {std::pair{"inputs", &op.inputs}, std::pair{"outputs", &op.outputs}}) {
        const auto entries = problem.value(key, nlohmann::json::array());
        if (!entries.is_array())
            return Error{std::string("problem.json: \"") + key + "\" must be a list"};
        for (std::size_t i = 0; i < entries.size(); ++i) {
            auto spec = tensorSpec(entries[i], std::string("problem.json ") + key + " " + std::to_string(i + 1));
            if (!spec)
                return spec.error();
            list->push_back(std::move(*spec));
        }
    }
    if (op.inputs.empty() || op.outputs.empty())
        return Error{"the model has no tensor inputs or no outputs"};
    for (const auto &set : problem.value("shapeSets", nlohmann::json::array())) {
        if (!set.is_object())
            return Error{"problem.json: a shape set must be an object"};
        ShapeSet shapes;
        for (const auto &[symbol, value] : set.items()) {
            if (!value.is_number_integer() || value.get<std::int64_t>() <= 0)
                return Error{"problem.json: shape symbol " + symbol + " needs a positive size"};
            shapes[symbol] = value.get<std::int64_t>();
        }
        op.shapeSets.push_back(std::move(shapes));
    }
    if (op.shapeSets.empty())
        return Error{"problem.json has no shape set"};
    for (const auto &note : problem.value("notes", nlohmann::json::array()))
        if (note.is_string())
            imported.notes.push_back(note.get<std::string>());

    auto graph = opGraphFromJson(problem.value("graph", nlohmann::json::object()));
    if (!graph)
        return Error{"problem.json: " + graph.error().message};
    addSecondShapes(*graph, problem.value("secondShapes", nlohmann::json::array()));
    imported.graph = withDeviceMovesFolded(*graph);
    op.bytesMovedExpr = bytesMovedExpression(op);
    op.flopsExpr = graphFlopsExpression(imported.graph, op);

    auto translated = GraphTranslator().translate(imported.graph, op);
    if (translated)
        op = std::move(*translated);
    else
        imported.translationError = translated.error().message;
    return imported;
}

} // namespace

Expected<ImportedProblem> BundleReader::read(const std::string &bundleDir, const std::string &problemPath)
{
    // The bundle folder is writable by the problem file's code too: its JSON is read as untrusted input.
    try {
        return readBundle(bundleDir, problemPath);
    } catch (const nlohmann::json::exception &error) {
        const std::string what = error.what();
        const auto end = what.find("] ");
        return Error{"problem.json is malformed: " + (end == std::string::npos ? what : what.substr(end + 2))};
    }
}

} // namespace kx
