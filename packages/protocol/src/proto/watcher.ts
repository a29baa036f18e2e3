// watcher.v1 (dataplane §13.3): the file watcher the newest SDKs stream events from, served on
// the same gRPC port as process.v1.
import type { INamespace } from 'protobufjs';
import { enumeration, field, message, rpc, service } from './descriptor.ts';

export const WATCHER_PACKAGE = 'watcher.v1';
export const WATCHER_SERVICE = `${WATCHER_PACKAGE}.FileWatcherService`;

export const watcherPackage: INamespace = {
  options: {
    go_package: 'sigs.k8s.io/agent-sandbox/packages/sandboxd/spec/watcher/v1;watcherv1',
    java_multiple_files: true,
    java_package: 'io.sandboxd.packages.sandboxd.spec.watcher',
  },
  nested: {
    FileWatcherService: service({ WatchDir: rpc('WatchDirRequest', 'FileEvent', true) }),
    WatchDirRequest: message({ path: field('string', 1), recursive: field('bool', 2) }),
    FileEventType: enumeration({
      FILE_EVENT_TYPE_UNSPECIFIED: 0,
      FILE_EVENT_TYPE_CREATE: 1,
      FILE_EVENT_TYPE_WRITE: 2,
      FILE_EVENT_TYPE_REMOVE: 3,
      FILE_EVENT_TYPE_RENAME: 4,
      FILE_EVENT_TYPE_CHMOD: 5,
      FILE_EVENT_TYPE_ERROR: 6,
    }),
    FileEvent: message({
      type: field('FileEventType', 1),
      path: field('string', 2),
      old_path: field('string', 3),
      error: field('string', 4),
    }),
  },
};

export const FileEventType = {
  CREATE: 1,
  WRITE: 2,
  REMOVE: 3,
  RENAME: 4,
  CHMOD: 5,
  ERROR: 6,
} as const;

export interface WatchDirRequest {
  path: string;
  recursive: boolean;
}
export interface FileEvent {
  type: number;
  path: string;
  old_path: string;
  error: string;
}
export const WATCH_LIMIT = 64;
export const WATCH_BATCH_MS = 250;
