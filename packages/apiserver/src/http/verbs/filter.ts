// Label and field selectors of list, watch and deletecollection requests (semantics doc §3.2):
// parse errors are 400 BadRequest with kube's message.
import type { KubeObject } from '../../objects.ts';
import type { ResourceInfo } from '../../resources/resource.ts';
import {
  customResourceFieldSelectors,
  FIELD_SELECTORS,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelectorSpec,
} from '../../selectors/index.ts';

export type ObjectFilter = (obj: KubeObject) => boolean;

function fieldSpec(r: ResourceInfo, version: string): FieldSelectorSpec {
  if (r.crd) {
    const selectable = r.crd.spec.versions.find((v) => v.name === version)?.selectableFields ?? [];
    return customResourceFieldSelectors({ namespaced: r.namespaced, selectableFields: selectable });
  }
  const spec = FIELD_SELECTORS[r.group === '' ? r.plural : `${r.group}/${r.plural}`];
  return spec ?? customResourceFieldSelectors({ namespaced: r.namespaced });
}

export function listFilter(r: ResourceInfo, url: URL, version = r.storageVersion): ObjectFilter {
  const labelText = url.searchParams.get('labelSelector') ?? '';
  const fieldText = url.searchParams.get('fieldSelector') ?? '';
  if (labelText === '' && fieldText === '') return () => true;
  // A SelectorError carries kube's message; the error boundary answers it as 400 BadRequest.
  const labels = parseLabelSelector(labelText);
  const spec = fieldSpec(r, version);
  const fields = parseFieldSelector(fieldText, spec);
  return (obj) => labels.matches(obj.metadata.labels ?? {}) && fields.matches(spec.extract(obj));
}
