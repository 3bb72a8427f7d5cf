#include "core/plan/roofline.h"

#include "core/plan/launchplan.h"

#include <algorithm>
#include <cstdio>

namespace kx {

Expected<RooflineFloor> rooflineFloor(const Op &op, const ShapeSet &shapes, double bandwidthGBs, double peakTflops)
{
    RooflineFloor floor;
    floor.bandwidthGBs = bandwidthGBs;
    floor.peakTflops = peakTflops;
    if (!op.bytesMovedExpr.empty()) {
        auto bytes = evaluateIntExpression(op.bytesMovedExpr, shapes);
        if (!bytes)
            return Error{"bytesMoved: " + bytes.error().message};
        floor.bytes = double(*bytes);
    }
    if (!op.flopsExpr.empty()) {
        auto flops = evaluateIntExpression(op.flopsExpr, shapes);
        if (!flops)
            return Error{"flops: " + flops.error().message};
        floor.flops = double(*flops);
    }
    const double memoryMs = bandwidthGBs > 0 ? floor.bytes / (bandwidthGBs * 1e9) * 1e3 : 0;
    const double computeMs = peakTflops > 0 ? floor.flops / (peakTflops * 1e12) * 1e3 : 0;
    floor.floorMs = std::max(memoryMs, computeMs);
    return floor;
}

Expected<RooflineFloor> rooflineFloor(const Op &op, const GpuInfo &gpu, Precision precision)
{
    if (op.shapeSets.empty())
        return Error{"op " + op.name + " has no shape set"};
    return rooflineFloor(op, op.shapeSets.front(), gpu.measuredBandwidthGBs, peakTflopsFor(gpu, precision));
}

bool isBelowFloor(double medianMs, const RooflineFloor &floor)
{
    return floor.floorMs > 0 && medianMs < floor.floorMs * kFloorSlack;
}

double tf32OverFp32(int major, int minor)
{
    if (major < 8)
        return 1;
    if (major == 8)
        return minor == 0 ? 8 : 2;
    if (major == 9)
        return 8;
    return 16;
}

double peakTflopsFor(const GpuInfo &gpu, Precision precision)
{
    if (!allowsTf32(precision))
        return gpu.peakTflops;
    int major = 0, minor = 0;
    if (std::sscanf(gpu.computeCapability.c_str(), "%d.%d", &major, &minor) != 2)
        return gpu.peakTflops * tf32OverFp32(99, 0); // unknown chip: the largest ratio keeps the floor low
    return gpu.peakTflops * tf32OverFp32(major, minor);
}

} // namespace kx
