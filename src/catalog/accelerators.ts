import type { AcceleratorSpec } from '../schema/catalog.ts';

/**
 * Accelerator specs. Conventions (every entry follows them; a test validates each against the schema):
 *
 * - `memoryGiB`: the capacity the vendor markets ("80 GB", "288 GB") read as GiB. HBM stacks are built in binary
 *   sizes, so the marketed number is the GiB the device exposes to within ~1-2% (nvidia-smi shows 81,559 MiB on
 *   an H100 80GB; rocm-smi 288 GiB on an MI355X).
 * - `memoryBandwidthTBs`: peak HBM bandwidth, 10^12 B/s.
 * - `denseTflops`: tensor-core peak WITHOUT structured sparsity (vendors headline the 2:4-sparse number, twice
 *   this). fp4 is null where the chip has no FP4 tensor format.
 * - `scaleUp.bandwidthGBs`: per-GPU unidirectional bandwidth into the scale-up fabric (vendors quote the
 *   bidirectional aggregate: NVLink 4 "900 GB/s" = 450 GB/s each way; NVLink 5 "1.8 TB/s" = 900 GB/s).
 * - `scaleOutGBs`: one NIC per GPU, unidirectional: ConnectX-7 400 Gb/s = 50 GB/s, ConnectX-8 800 Gb/s = 100 GB/s.
 * - `pricePerGpuHour`: a market rental estimate (mid-2026 neocloud on-demand medians, rounded), always listed in
 *   `estimated`.
 * - `denseTflops.fp8: null` where the chip has no FP8 tensor format (A100, MI250X): FP8 checkpoints then run
 *   weight-only (FP8 weights, BF16 math), as vLLM's Marlin kernels do.
 * - PCIe cards without NVLink (L40S, L4) have the 8 GPUs of a server as their scale-up domain, at PCIe speed.
 */

const PRICE_SOURCES = [
  {
    url: 'https://aimultiple.com/gpu-index',
    note: 'cloud GPU rental price index (monthly medians over ~58 providers), May 2026',
  },
  {
    url: 'https://compux.net/docs/guides/gpu-pricing-trends-2026',
    note: 'quotes the SemiAnalysis H100 rental index at ~$2.35/GPU-hour (March 2026)',
  },
];

export const ACCELERATORS: readonly AcceleratorSpec[] = [
  {
    id: 'h100',
    vendor: 'nvidia',
    name: 'NVIDIA H100 SXM5 80GB',
    memoryGiB: 80,
    memoryBandwidthTBs: 3.35,
    denseTflops: { bf16: 989.4, fp8: 1978.9, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 450 },
    scaleOutGBs: 50,
    powerW: 700,
    pricePerGpuHour: 2.35,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/h100/',
        note: 'H100 SXM datasheet (sparse TFLOPs / 2)',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['pricePerGpuHour'],
  },
  {
    id: 'h200',
    vendor: 'nvidia',
    name: 'NVIDIA H200 SXM 141GB',
    memoryGiB: 141,
    memoryBandwidthTBs: 4.8,
    denseTflops: { bf16: 989.4, fp8: 1978.9, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 450 },
    scaleOutGBs: 50,
    powerW: 700,
    pricePerGpuHour: 3.0,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/h200/',
        note: 'H200 SXM datasheet (sparse TFLOPs / 2)',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['pricePerGpuHour'],
  },
  {
    id: 'b200',
    vendor: 'nvidia',
    name: 'NVIDIA B200 (HGX/DGX B200, 180GB)',
    memoryGiB: 180,
    memoryBandwidthTBs: 8.0,
    denseTflops: { bf16: 2250, fp8: 4500, fp4: 9000 },
    scaleUp: { domainGpus: 8, bandwidthGBs: 900 },
    scaleOutGBs: 50,
    powerW: 1000,
    pricePerGpuHour: 4.5,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/dgx-b200/',
        note: 'DGX B200: 1,440 GB HBM3e and 64 TB/s over 8 GPUs; 72/144 PFLOPS FP8/FP4 sparse per system',
      },
      { url: 'https://www.nvidia.com/en-us/data-center/hgx/', note: 'HGX B200 per-GPU NVLink 5 at 1.8 TB/s' },
      ...PRICE_SOURCES,
    ],
    estimated: ['pricePerGpuHour'],
  },
  {
    id: 'b300',
    vendor: 'nvidia',
    name: 'NVIDIA B300 Blackwell Ultra (HGX/DGX B300, 288GB)',
    memoryGiB: 288,
    memoryBandwidthTBs: 8.0,
    denseTflops: { bf16: 2250, fp8: 4500, fp4: 13500 },
    scaleUp: { domainGpus: 8, bandwidthGBs: 900 },
    scaleOutGBs: 100,
    powerW: 1100,
    pricePerGpuHour: 5.5,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/hgx/',
        note: 'HGX B300: 144/108 PFLOPS FP4 sparse/dense per 8 GPUs, 2.3 TB HBM3e, ConnectX-8 800 Gb/s',
      },
      { url: 'https://www.nvidia.com/en-us/data-center/dgx-b300/', note: 'DGX B300 system datasheet' },
      ...PRICE_SOURCES,
    ],
    estimated: ['memoryBandwidthTBs', 'powerW', 'pricePerGpuHour'],
  },
  {
    id: 'gb200',
    vendor: 'nvidia',
    name: 'NVIDIA GB200 NVL72 (per Blackwell GPU, 186GB)',
    memoryGiB: 186,
    memoryBandwidthTBs: 8.0,
    denseTflops: { bf16: 2500, fp8: 5000, fp4: 10000 },
    scaleUp: { domainGpus: 72, bandwidthGBs: 900 },
    scaleOutGBs: 50,
    powerW: 1200,
    pricePerGpuHour: 5.0,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/gb200-nvl72/',
        note: 'GB200 NVL72: 13.4 TB HBM3e / 72 GPUs, 576 TB/s, 130 TB/s NVLink, 720/1,440 PFLOPS FP8/FP4 sparse',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['powerW', 'pricePerGpuHour'],
  },
  {
    id: 'gb300',
    vendor: 'nvidia',
    name: 'NVIDIA GB300 NVL72 (per Blackwell Ultra GPU, 288GB)',
    memoryGiB: 288,
    memoryBandwidthTBs: 8.0,
    denseTflops: { bf16: 2500, fp8: 5000, fp4: 15000 },
    scaleUp: { domainGpus: 72, bandwidthGBs: 900 },
    scaleOutGBs: 100,
    powerW: 1400,
    pricePerGpuHour: 6.0,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/gb300-nvl72/',
        note: 'GB300 NVL72: up to 21 TB HBM3e / 72 GPUs, 1,080 PFLOPS FP4 dense, ConnectX-8 800 Gb/s per GPU',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['memoryBandwidthTBs', 'powerW', 'pricePerGpuHour'],
  },
  {
    id: 'mi300x',
    vendor: 'amd',
    name: 'AMD Instinct MI300X 192GB',
    memoryGiB: 192,
    memoryBandwidthTBs: 5.3,
    denseTflops: { bf16: 1307.4, fp8: 2614.9, fp4: null },
    // 7 Infinity Fabric links per GPU, 896 GB/s bidirectional aggregate.
    scaleUp: { domainGpus: 8, bandwidthGBs: 448 },
    scaleOutGBs: 50,
    powerW: 750,
    pricePerGpuHour: 2.0,
    sources: [
      {
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html',
        note: 'MI300X datasheet (dense figures; sparsity doubles them)',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['pricePerGpuHour'],
  },
  {
    id: 'mi325x',
    vendor: 'amd',
    name: 'AMD Instinct MI325X 256GB',
    memoryGiB: 256,
    memoryBandwidthTBs: 6.0,
    denseTflops: { bf16: 1307.4, fp8: 2614.9, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 448 },
    scaleOutGBs: 50,
    powerW: 1000,
    pricePerGpuHour: 2.4,
    sources: [
      {
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html',
        note: 'MI325X datasheet: 256 GB HBM3E, 6 TB/s, same compute die as MI300X',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['pricePerGpuHour'],
  },
  {
    id: 'mi355x',
    vendor: 'amd',
    name: 'AMD Instinct MI355X 288GB',
    memoryGiB: 288,
    memoryBandwidthTBs: 8.0,
    denseTflops: { bf16: 2516.6, fp8: 5033.2, fp4: 10066.3 },
    // 7 Infinity Fabric links, 1,075 GB/s bidirectional aggregate per GPU.
    scaleUp: { domainGpus: 8, bandwidthGBs: 537.5 },
    scaleOutGBs: 50,
    powerW: 1400,
    pricePerGpuHour: 3.0,
    sources: [
      {
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html',
        note: 'MI355X datasheet: 288 GB HBM3E, 8 TB/s, FP16 2.5 PF / FP8 5 PF / MXFP4 10 PF dense, 1,400 W',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'rtx6000pro',
    vendor: 'nvidia',
    name: 'NVIDIA RTX PRO 6000 Blackwell Server Edition 96GB',
    memoryGiB: 96,
    memoryBandwidthTBs: 1.792,
    denseTflops: { bf16: 500, fp8: 1000, fp4: 2000 },
    // No NVLink: GPUs in a server talk over PCIe Gen5 x16 (~64 GB/s each way).
    scaleUp: { domainGpus: 8, bandwidthGBs: 64 },
    scaleOutGBs: 50,
    powerW: 600,
    pricePerGpuHour: 1.5,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/',
        note:
          '96 GB GDDR7 (512-bit, 1,792 GB/s), 4 PFLOPS FP4 sparse ("4,000 AI TOPS"), 600 W, PCIe Gen5; dense ' +
          'fp4 = sparse / 2, fp8 and bf16 derived from it by the usual 1:2:4 ratio',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['denseTflops', 'scaleUp', 'scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'a100',
    vendor: 'nvidia',
    name: 'NVIDIA A100 SXM4 80GB',
    memoryGiB: 80,
    memoryBandwidthTBs: 2.039,
    denseTflops: { bf16: 312, fp8: null, fp4: null },
    // NVLink 3: 600 GB/s bidirectional per GPU.
    scaleUp: { domainGpus: 8, bandwidthGBs: 300 },
    // HDR InfiniBand, 200 Gb/s per GPU in an HGX A100 node.
    scaleOutGBs: 25,
    powerW: 400,
    pricePerGpuHour: 1.2,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/a100/',
        note: 'A100 80GB SXM: 2,039 GB/s HBM2e, BF16 312 TFLOPS (624 with sparsity), NVLink 600 GB/s, 400 W; no FP8',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'a100-40gb',
    vendor: 'nvidia',
    name: 'NVIDIA A100 SXM4 40GB',
    memoryGiB: 40,
    memoryBandwidthTBs: 1.555,
    denseTflops: { bf16: 312, fp8: null, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 300 },
    scaleOutGBs: 25,
    powerW: 400,
    pricePerGpuHour: 0.9,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/a100/',
        note: 'A100 40GB SXM: 1,555 GB/s HBM2, BF16 312 TFLOPS dense, NVLink 600 GB/s, 400 W; no FP8',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'l40s',
    vendor: 'nvidia',
    name: 'NVIDIA L40S 48GB (PCIe)',
    memoryGiB: 48,
    memoryBandwidthTBs: 0.864,
    denseTflops: { bf16: 362.05, fp8: 733, fp4: null },
    // No NVLink: PCIe Gen4 x16, 64 GB/s bidirectional.
    scaleUp: { domainGpus: 8, bandwidthGBs: 32 },
    scaleOutGBs: 25,
    powerW: 350,
    pricePerGpuHour: 0.8,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/l40s/',
        note:
          'L40S datasheet: 48 GB GDDR6, 864 GB/s, BF16 362.05 TFLOPS / FP8 733 TFLOPS dense (733 / 1,466 with ' +
          'sparsity), PCIe Gen4 x16 64 GB/s bidirectional, no NVLink, 350 W',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'l4',
    vendor: 'nvidia',
    name: 'NVIDIA L4 24GB (PCIe)',
    memoryGiB: 24,
    memoryBandwidthTBs: 0.3,
    denseTflops: { bf16: 121, fp8: 242.5, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 32 },
    scaleOutGBs: 12.5,
    powerW: 72,
    pricePerGpuHour: 0.4,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/l4/',
        note:
          'L4 datasheet: 24 GB GDDR6, 300 GB/s, BF16 242 / FP8 485 TFLOPS with sparsity (dense: half), PCIe Gen4 ' +
          'x16, 72 W',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'h20',
    vendor: 'nvidia',
    name: 'NVIDIA H20 96GB',
    memoryGiB: 96,
    memoryBandwidthTBs: 4.0,
    denseTflops: { bf16: 148, fp8: 296, fp4: null },
    scaleUp: { domainGpus: 8, bandwidthGBs: 450 },
    scaleOutGBs: 50,
    powerW: 400,
    pricePerGpuHour: 1.0,
    sources: [
      {
        url: 'https://www.semianalysis.com/p/nvidias-new-china-ai-chips-circumvent',
        note: 'H20 (Hopper, export variant): 96 GB HBM3, 4.0 TB/s, BF16 148 / FP8 296 TFLOPS dense, NVLink 900 GB/s, 400 W',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleOutGBs', 'pricePerGpuHour'],
  },
  {
    id: 'gh200',
    vendor: 'nvidia',
    name: 'NVIDIA GH200 Grace Hopper Superchip 96GB',
    memoryGiB: 96,
    memoryBandwidthTBs: 4.0,
    denseTflops: { bf16: 989.4, fp8: 1978.9, fp4: null },
    // Most GH200 nodes hold one superchip (NVL2 and NVL32 systems have larger NVLink domains: a user catalog
    // entry can say so).
    scaleUp: { domainGpus: 1, bandwidthGBs: 450 },
    scaleOutGBs: 50,
    powerW: 1000,
    pricePerGpuHour: 1.6,
    sources: [
      {
        url: 'https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/',
        note:
          'GH200: H100-class GPU (FP8 3,958 / BF16 1,979 TFLOPS with sparsity) with 96 GB HBM3 at 4 TB/s (a 144 GB ' +
          'HBM3e variant has 4.9 TB/s), NVLink-C2C to the Grace CPU, 450–1,000 W module power',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleUp', 'powerW', 'pricePerGpuHour'],
  },
  {
    id: 'mi250x',
    vendor: 'amd',
    name: 'AMD Instinct MI250X, one GCD (ROCm shows each of its two dies as a GPU)',
    memoryGiB: 64,
    memoryBandwidthTBs: 1.6,
    denseTflops: { bf16: 191.5, fp8: null, fp4: null },
    // Four MI250X per node: 8 GCDs on Infinity Fabric (50–200 GB/s between pairs).
    scaleUp: { domainGpus: 8, bandwidthGBs: 50 },
    scaleOutGBs: 25,
    powerW: 280,
    pricePerGpuHour: 0.5,
    sources: [
      {
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html',
        note:
          'MI250X: 128 GB HBM2e, 3.2 TB/s, 383 TFLOPS FP16/BF16 and 560 W for the package of two GCDs (halved here ' +
          'per GCD); no FP8',
      },
      ...PRICE_SOURCES,
    ],
    estimated: ['scaleUp', 'scaleOutGBs', 'powerW', 'pricePerGpuHour'],
  },
];
