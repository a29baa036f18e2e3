// Errors of namespace lifecycle that the write paths raise (semantics doc §9.2). Kept apart from
// namespace-deletion.ts so that the create path can import it without an import cycle.
import { detailsFor, statusError, type ApiError } from '../errors.ts';
import { qualifiedResource, type ResourceInfo } from '../resources/resource.ts';

/** 403 for a create in a terminating namespace, with kube's message and cause (§9.2). */
export function namespaceTerminating(
  r: Pick<ResourceInfo, 'group' | 'plural'>,
  name: string,
  namespace: string,
): ApiError {
  return statusError(
    403,
    'Forbidden',
    `${qualifiedResource(r)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      ...detailsFor(r, name, r.plural),
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    },
  );
}
