/** A user-catalog accelerator entry (YAML list item) that the built-in catalog lacks: tests of the user catalog. */
export const MY_GPU_ENTRY = `  - id: my-gpu
    vendor: nvidia
    name: My GPU 64GB
    memoryGiB: 64
    memoryBandwidthTBs: 2
    denseTflops: { bf16: 400, fp8: 800, fp4: null }
    scaleUp: { domainGpus: 4, bandwidthGBs: 200 }
    scaleOutGBs: 25
    powerW: 500
    pricePerGpuHour: 1.1
    sources: [{ url: 'https://example.com/my-gpu' }]
    estimated: [pricePerGpuHour]
`;
