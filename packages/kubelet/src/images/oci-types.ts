// OCI image-spec / Docker schema 2 documents as far as the node agent reads them (§4.2–4.4).

export const MediaType = {
  OciIndex: 'application/vnd.oci.image.index.v1+json',
  OciManifest: 'application/vnd.oci.image.manifest.v1+json',
  OciConfig: 'application/vnd.oci.image.config.v1+json',
  OciLayer: 'application/vnd.oci.image.layer.v1.tar',
  OciLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  OciLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  DockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  DockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  DockerConfig: 'application/vnd.docker.container.image.v1+json',
  DockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  DockerLayer: 'application/vnd.docker.image.rootfs.diff.tar',
} as const;

export const INDEX_TYPES: ReadonlySet<string> = new Set([
  MediaType.OciIndex,
  MediaType.DockerManifestList,
]);
export const MANIFEST_TYPES: ReadonlySet<string> = new Set([
  MediaType.OciManifest,
  MediaType.DockerManifest,
]);

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: Platform;
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
}

export interface ImageConfig {
  architecture?: string;
  os?: string;
  config?: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    StopSignal?: string;
    Labels?: Record<string, string>;
  };
  rootfs?: { type: string; diff_ids: string[] };
}

/** The host's platform in OCI words (Node's `x64` is `amd64`). */
export function hostPlatform(): Platform {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'ia32' ? '386' : process.arch;
  return { os: 'linux', architecture: arch, ...(arch === 'arm64' ? { variant: 'v8' } : {}) };
}

/** Picks the manifest for `want` from an index, skipping attestations (§5.6). */
export function selectPlatform(index: ImageIndex, want: Platform): Descriptor | undefined {
  const candidates = index.manifests.filter(
    (d) =>
      d.annotations?.['vnd.docker.reference.type'] !== 'attestation-manifest' &&
      (d.platform === undefined ||
        (d.platform.os === want.os && d.platform.architecture === want.architecture)),
  );
  const variantOk = (d: Descriptor) =>
    want.variant === undefined ||
    d.platform?.variant === undefined ||
    d.platform.variant === want.variant;
  return (
    candidates.find((d) => d.platform !== undefined && d.platform.variant === want.variant) ??
    candidates.find((d) => d.platform !== undefined && variantOk(d)) ??
    candidates.find((d) => d.platform === undefined)
  );
}
