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
];
