import { createGroupHandler } from '../../shared/service/http/group-handler';
import { productRoutes } from '../../shared/service/http/route-groups/products';
import { Products } from '../../shared/service/products/products';
import { toProductView } from '../../shared/service/products/product-store';

export const handler = createGroupHandler(productRoutes, {
  listProducts: async ({ caller, query }) => {
    const page = await Products.list(caller.teamId, query);
    return { status: 200, body: { data: page.data.map(toProductView), meta: page.meta } };
  },
  createProduct: async ({ caller, body }) => ({
    status: 201,
    body: { data: toProductView(await Products.create(caller.teamId, caller.actor, body)) },
  }),
  getProduct: async ({ caller, params }) => ({
    status: 200,
    body: { data: toProductView(await Products.get(caller.teamId, params.productId)) },
  }),
  updateProduct: async ({ caller, params, body }) => ({
    status: 200,
    body: { data: toProductView(await Products.update(caller.teamId, caller.actor, params.productId, body)) },
  }),
  deleteProduct: async ({ caller, params }) => {
    await Products.delete(caller.teamId, caller.actor, params.productId);
    return { status: 204 };
  },
});
