#include "bench/plot.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace ontomem {
namespace {

using nlohmann::json;

Status WriteText(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f.flush()) return Status::IOError("cannot write " + p.string());
  return Status::Ok();
}

// gnuplot strings are single-quoted; titles come from file names and method names.
std::string Quote(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return "'" + out + "'";
}

std::string Label(const json& dataset) {
  std::string p = dataset.value("path", "dataset");
  return std::filesystem::path(p).stem().string();
}

// Runs the script once per terminal so each plot exists as SVG and PNG.
Status RunGnuplot(const std::filesystem::path& dir, const std::string& name, const std::string& body) {
  for (const char* ext : {"svg", "png"}) {
    std::string term = std::string(ext) == "svg" ? "svg size 900,560 dynamic background rgb 'white'"
                                                 : "pngcairo size 900,560";
    // noenhanced: '_' and '@' in file and method names are text, not markup.
    std::string script =
        fmt::format("set terminal {} noenhanced\nset output '{}.{}'\n{}", term, name, ext, body);
    std::string gp = fmt::format("{}.{}.gp", name, ext);
    RETURN_IF_ERROR(WriteText(dir / gp, script));
    std::string cmd = fmt::format("cd '{}' && gnuplot '{}' 2>'{}.log'", dir.string(), gp, name);
    if (std::system(cmd.c_str()) != 0)
      return Status::Internal(fmt::format("gnuplot failed on {}; see {}", (dir / gp).string(),
                                          (dir / (name + ".log")).string()));
  }
  return Status::Ok();
}

}  // namespace

Status WritePlots(const json& result, const std::string& dir_name) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    return Status::FailedPrecondition("gnuplot is not installed: run `make setup` (Debian package gnuplot-nox)");
  std::filesystem::path dir(dir_name);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(fmt::format("cannot create {}: {}", dir_name, ec.message()));
  const int k = result.value("k", 10);
  const json& datasets = result.at("datasets");

  std::vector<std::string> methods;
  for (const auto& d : datasets)
    for (auto it = d["methods"].begin(); it != d["methods"].end(); ++it)
      if (std::find(methods.begin(), methods.end(), it.key()) == methods.end()) methods.push_back(it.key());

  // Recall against history scale.
  std::map<int, const json*> by_scale;
  for (const auto& d : datasets)
    if (d.value("history_scale", 0) > 0) by_scale[d["history_scale"].get<int>()] = &d;
  if (by_scale.size() >= 2) {
    std::string dat = "# scale";
    for (const auto& m : methods) dat += " " + m;
    dat += "\n";
    for (const auto& [scale, d] : by_scale) {
      dat += std::to_string(scale);
      for (const auto& m : methods) {
        const json& mj = (*d)["methods"];
        dat += mj.contains(m) ? fmt::format(" {:.4f}", mj[m]["recall"].get<double>()) : " NaN";
      }
      dat += "\n";
    }
    RETURN_IF_ERROR(WriteText(dir / "recall_vs_scale.dat", dat));
    std::string body = fmt::format(
        "set title 'Recall@{} vs history scale'\nset xlabel 'history scale (x base history)'\n"
        "set ylabel 'Recall@{}'\nset logscale x 2\nset yrange [0:1]\nset key outside right\nset grid\n"
        "plot ", k, k);
    for (size_t i = 0; i < methods.size(); ++i)
      body += fmt::format("{}'recall_vs_scale.dat' using 1:{} with linespoints lw 2 title {}",
                          i ? ", " : "", i + 2, Quote(methods[i]));
    RETURN_IF_ERROR(RunGnuplot(dir, "recall_vs_scale", body + "\n"));
  }

  // Recall against cost relative to dense (context tokens, p50 latency).
  {
    std::string dat = "# dataset method recall tokens_rel latency_rel\n";
    for (const auto& d : datasets) {
      const json& mj = d["methods"];
      double tok0 = 0, lat0 = 0;
      if (mj.contains("dense")) {
        tok0 = mj["dense"]["context_tokens"].get<double>();
        lat0 = mj["dense"]["latency_us"]["p50"].get<double>();
      }
      for (const auto& m : methods) {
        if (!mj.contains(m)) continue;
        double tok = mj[m]["context_tokens"].get<double>(), lat = mj[m]["latency_us"]["p50"].get<double>();
        dat += fmt::format("{} {} {:.4f} {:.4f} {:.4f}\n", Label(d), m, mj[m]["recall"].get<double>(),
                           tok0 > 0 ? tok / tok0 : 1.0, lat0 > 0 ? lat / lat0 : 1.0);
      }
    }
    RETURN_IF_ERROR(WriteText(dir / "pareto.dat", dat));
    std::string body = fmt::format(
        "set title 'Recall@{} vs cost (relative to dense in the same dataset)'\n"
        "set xlabel 'p50 query latency / dense'\nset ylabel 'Recall@{}'\nset yrange [0:1]\nset grid\n"
        "set key outside right\nplot ",
        k, k);
    for (size_t i = 0; i < methods.size(); ++i)
      body += fmt::format("{}'pareto.dat' using 5:(strcol(2) eq {} ? $3 : NaN) with points pt 7 ps 1.6 title {}",
                          i ? ", " : "", Quote(methods[i]), Quote(methods[i]));
    body += ", '' using 5:3:1 with labels offset 0.8,0.6 left font ',7' notitle\n";
    RETURN_IF_ERROR(RunGnuplot(dir, "pareto", body));
  }

  // Per-slice bars per dataset.
  for (size_t di = 0; di < datasets.size(); ++di) {
    const json& d = datasets[di];
    std::set<std::string> slices;
    for (const auto& m : methods)
      if (d["methods"].contains(m))
        for (auto it = d["methods"][m]["slices"].begin(); it != d["methods"][m]["slices"].end(); ++it)
          if (it.key().rfind("domain:", 0) != 0) slices.insert(it.key());
    if (slices.empty()) continue;
    std::string dat = "slice";
    for (const auto& m : methods) dat += " " + m;
    dat += "\n";
    for (const auto& s : slices) {
      std::string name = s;
      for (char& c : name) if (c == ' ') c = '_';
      dat += name;
      for (const auto& m : methods) {
        const json* sl = nullptr;
        if (d["methods"].contains(m) && d["methods"][m]["slices"].contains(s)) sl = &d["methods"][m]["slices"][s];
        dat += sl ? fmt::format(" {:.4f}", (*sl)["recall"].get<double>()) : " 0";
      }
      dat += "\n";
    }
    std::string name = fmt::format("slices_{}", di);
    RETURN_IF_ERROR(WriteText(dir / (name + ".dat"), dat));
    std::string body = fmt::format(
        "set title {}\nset ylabel 'Recall@{}'\nset yrange [0:1]\nset style data histograms\n"
        "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\nset boxwidth 0.9\n"
        "set xtics rotate by -35 noenhanced\nset key outside right\nset grid ytics\nplot ",
        Quote(fmt::format("Recall@{} per slice: {}", k, Label(d))), k);
    for (size_t i = 0; i < methods.size(); ++i)
      body += fmt::format("{}'{}.dat' using {}:xtic(1) title {}", i ? ", " : "", name, i + 2, Quote(methods[i]));
    RETURN_IF_ERROR(RunGnuplot(dir, name, body + "\n"));
  }
  return Status::Ok();
}

}  // namespace ontomem
